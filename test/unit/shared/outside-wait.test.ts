// R52: a request waiting long on an outside service lends its admission place for the wait and
// takes it back when the call settles, whichever way; a quick call keeps its place.
import { expect } from 'chai';
import { waitingOutside, withPlace, type Place } from '../../../src/shared/outside-wait.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function countingPlace() {
  const counts = { out: 0, back: 0 };
  const place: Place = {
    stepOut: () => {
      counts.out += 1;
      return () => (counts.back += 1);
    },
  };
  return { place, counts };
}

describe('a long outside wait lends the admission place (R52)', () => {
  it('a call that takes 100 ms steps out once and comes back once, with its result', async () => {
    const { place, counts } = countingPlace();
    const result = await withPlace(place, () => waitingOutside(async () => (await sleep(100), 'answer')));
    expect(result).to.equal('answer');
    expect(counts).to.deep.equal({ out: 1, back: 1 });
  });

  it('a call that fails after 100 ms comes back too, and its error reaches the caller', async () => {
    const { place, counts } = countingPlace();
    const failed = await withPlace(place, () =>
      waitingOutside(async () => {
        await sleep(100);
        throw new Error('generator down');
      }).catch((error: unknown) => error),
    );
    expect((failed as Error).message).to.equal('generator down');
    expect(counts).to.deep.equal({ out: 1, back: 1 });
  });

  it('a call that answers at once keeps its place (the offline generator)', async () => {
    const { place, counts } = countingPlace();
    await withPlace(place, () => waitingOutside(async () => 'at once'));
    await sleep(50);
    expect(counts).to.deep.equal({ out: 0, back: 0 });
  });

  it('the place follows the request through awaits, and two requests keep their own', async () => {
    const a = countingPlace();
    const b = countingPlace();
    await Promise.all([
      withPlace(a.place, async () => {
        await sleep(5);
        await waitingOutside(() => sleep(100));
      }),
      withPlace(b.place, () => waitingOutside(async () => 'quick')),
    ]);
    expect(a.counts).to.deep.equal({ out: 1, back: 1 });
    expect(b.counts).to.deep.equal({ out: 0, back: 0 });
  });

  it('without a place (admission control off) the call just runs', async () => {
    expect(await waitingOutside(async () => (await sleep(30), 7))).to.equal(7);
  });
});
