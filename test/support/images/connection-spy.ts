// Records every outgoing TCP connection attempt of this process (plain and TLS
// sockets both go through net.Socket#connect), to assert that a refused target
// was never connected to, not even briefly.
import net from 'node:net';

export interface ConnectionSpy {
  readonly attempts: string[];
  restore(): void;
}

export function spyOnConnections(): ConnectionSpy {
  const attempts: string[] = [];
  const original = net.Socket.prototype.connect;
  const patched = function (this: net.Socket, ...args: unknown[]): net.Socket {
    const first = args[0];
    const options = (Array.isArray(first) ? first[0] : first) as { host?: string; port?: number; path?: string } | number;
    attempts.push(typeof options === 'object' && options !== null ? `${options.host ?? options.path}:${options.port}` : String(options));
    return (original as (...a: unknown[]) => net.Socket).apply(this, args);
  };
  net.Socket.prototype.connect = patched as typeof original;
  return { attempts, restore: () => void (net.Socket.prototype.connect = original) };
}
