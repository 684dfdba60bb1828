// A network namespace joined to this one by a veth pair, for what a loopback connection or a
// user-space proxy cannot show: a real partition. Taking this side's end of the pair down drops
// every packet in both directions and sends nothing (no FIN, no RST), so the peer's kernel sees
// only silence, as after a cable pulled, a host that died or a firewall that drops. (A proxy in
// this process cannot stand in for that: its own kernel would go on acknowledging the server.)
// Needs root (CAP_NET_ADMIN) and iproute2's `ip`; creating the namespace fails otherwise.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface LinkedNamespace {
  /** The namespace's name, for `ip netns exec`. */
  readonly name: string;
  /** The address of the namespace's end of the link. */
  readonly insideAddress: string;
  /** The address of this namespace's end. */
  readonly outsideAddress: string;
  /** The partition: this side's end of the link goes down, silently. */
  cut(): Promise<void>;
  /** The link up again (what was sent meanwhile is lost; connections the peer ended get a reset). */
  heal(): Promise<void>;
  remove(): Promise<void>;
}

export async function createLinkedNamespace(): Promise<LinkedNamespace> {
  // Names of at most 15 characters (IFNAMSIZ), distinct per test process.
  const tag = String(process.pid % 100_000);
  const name = `ers-link-${tag}`;
  const outsideEnd = `ersl${tag}a`;
  const insideEnd = `ersl${tag}b`;
  const subnet = `10.231.${process.pid % 250}`;
  const outsideAddress = `${subnet}.1`;
  const insideAddress = `${subnet}.2`;
  const ip = (...args: string[]) => run('ip', args, { timeout: 10_000 });
  const remove = async () => {
    await ip('link', 'del', outsideEnd).catch(() => {});
    await ip('netns', 'del', name).catch(() => {});
  };
  await remove();
  try {
    await ip('netns', 'add', name);
    await ip('link', 'add', outsideEnd, 'type', 'veth', 'peer', 'name', insideEnd);
    await ip('link', 'set', insideEnd, 'netns', name);
    await ip('addr', 'add', `${outsideAddress}/30`, 'dev', outsideEnd);
    await ip('link', 'set', outsideEnd, 'up');
    await ip('netns', 'exec', name, 'ip', 'addr', 'add', `${insideAddress}/30`, 'dev', insideEnd);
    await ip('netns', 'exec', name, 'ip', 'link', 'set', insideEnd, 'up');
    await ip('netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up');
  } catch (error) {
    await remove();
    throw new Error(`a network namespace with a veth link could not be made (root and iproute2 are needed): ${(error as Error).message}`, { cause: error });
  }
  return {
    name,
    insideAddress,
    outsideAddress,
    cut: async () => void (await ip('link', 'set', outsideEnd, 'down')),
    heal: async () => void (await ip('link', 'set', outsideEnd, 'up')),
    remove,
  };
}
