// The bench's processor accounting (bench/support/cpu-share.ts), read from /proc: a child that
// spins for the whole window shows as about one core, one that sleeps as about none, and the
// service's time per 201 is its processor time over the 201s counted.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { measureCpu, type CpuShare } from '../../../bench/support/cpu-share.ts';

/** A node child that spins (busy) or sleeps for at most 10 s, killed by the test. */
async function child(busy: boolean): Promise<ChildProcess> {
  const script = busy ? 'const end = Date.now() + 10_000; while (Date.now() < end);' : 'setTimeout(() => {}, 10_000);';
  const proc = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  await once(proc, 'spawn');
  return proc;
}

describe('bench processor accounting (/proc)', function () {
  this.timeout(15_000);
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const proc of children.splice(0)) proc.kill('SIGKILL');
  });

  /** A child's share over a 600 ms window that starts once it runs, with `created` 201s counted. */
  async function windowOf(busy: boolean, created: number): Promise<CpuShare> {
    const proc = await child(busy);
    children.push(proc);
    await sleep(200);
    const cpu = measureCpu(proc.pid as number);
    await sleep(600);
    const share = cpu.stop(created);
    if (share === undefined) throw new Error('no figures for a live process');
    return share;
  }

  it('a spinning process shows as most of a core, and its time per 201 is its time over the count', async () => {
    const share = await windowOf(true, 300);
    // A spinner is runnable for the whole window: on a processor, or waiting for one while the
    // machine's other work has it (the scheduler's own count, schedstat). So its share plus its
    // wait is one core's worth however busy the machine is, and the two accountings of its time
    // on a processor (/proc/<pid>/stat's ticks, schedstat's nanoseconds) agree.
    expect(share.loopRunPct, 'schedstat is read').to.be.a('number');
    expect(share.servicePct + (share.loopWaitPct ?? Number.NaN)).to.be.within(80, 115);
    expect(share.servicePct).to.be.closeTo(share.loopRunPct ?? Number.NaN, 15);
    expect(share.servicePct).to.be.above(10);
    expect(share.serviceMsPer201).to.be.closeTo((share.servicePct * 6) / 300, 0.5);
    // The spinner holds one core: the idle time is at most the other cores'.
    expect(share.idlePct).to.be.within(0, 100 * (availableParallelism() - 1) + 10);
  });

  it('a sleeping process shows as next to nothing', async () => {
    const share = await windowOf(false, 0);
    expect(share.servicePct).to.be.below(10);
    expect(Number.isNaN(share.serviceMsPer201)).to.equal(true);
  });

  it('a process gone before the end gives no figures', async () => {
    const proc = await child(false);
    const cpu = measureCpu(proc.pid as number);
    proc.kill('SIGKILL');
    await once(proc, 'exit');
    expect(cpu.stop(1)).to.equal(undefined);
  });
});
