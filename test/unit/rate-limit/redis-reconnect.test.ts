// R33 after a Redis failover: the errors that say the connection is on the wrong node reconnect
// it, in the words Redis 7 uses and in the wrapped form scripts got before Redis 7.
import { expect } from 'chai';
import { reconnectsAfter } from '../../../src/rate-limit/flexible-rate-limiter.ts';

describe('which Redis errors reconnect the rate-limit store (R33)', () => {
  const reconnecting = [
    "READONLY You can't write against a read only replica.",
    // Redis 6: an error inside EVAL/EVALSHA, as the rate limiter's script gets it.
    "ERR Error running script (call to f_8b5c9a): @user_script:1: @user_script: 1: -READONLY You can't write against a read only replica.",
    'LOADING Redis is loading the dataset in memory',
    "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
  ];
  for (const message of reconnecting) {
    it(`reconnects after: ${message.slice(0, 60)}`, () => expect(reconnectsAfter(new Error(message))).to.equal(true));
  }

  const staying = [
    'ERR wrong number of arguments for command',
    'NOSCRIPT No matching script. Please use EVAL.',
    'WRONGTYPE Operation against a key holding the wrong kind of value',
    'ERR value mentions READONLYISH text',
  ];
  for (const message of staying) {
    it(`keeps the connection after: ${message}`, () => expect(reconnectsAfter(new Error(message))).to.equal(false));
  }
});
