// CPython's random.Random, as far as stochastic rounding uses it: MT19937 seeded from an integer the way
// random_seed does (init_by_array over the 32-bit words of |seed|, least significant first), and getrandbits(64)
// (two outputs, the first the low 32 bits). Random(seed).getrandbits(64) here is the server's, bit for bit.

const N = 624, M = 397;

export class MersenneTwister {
  constructor(seed) {
    this.state = new Uint32Array(N);
    this.index = N;
    let rest = BigInt(seed);
    if (rest < 0n) rest = -rest;
    const key = [];
    do {
      key.push(Number(rest & 0xffffffffn));
      rest >>= 32n;
    } while (rest);
    this.seedByArray(key);
  }

  seedByArray(key) {
    const mt = this.state;
    mt[0] = 19650218;
    for (let i = 1; i < N; i++) mt[i] = Math.imul(1812433253, mt[i - 1] ^ (mt[i - 1] >>> 30)) + i;
    let i = 1, j = 0;
    for (let k = Math.max(N, key.length); k; k--) {
      mt[i] = (mt[i] ^ Math.imul(mt[i - 1] ^ (mt[i - 1] >>> 30), 1664525)) + key[j] + j;
      i++;
      j++;
      if (i >= N) { mt[0] = mt[N - 1]; i = 1; }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k; k--) {
      mt[i] = (mt[i] ^ Math.imul(mt[i - 1] ^ (mt[i - 1] >>> 30), 1566083941)) - i;
      i++;
      if (i >= N) { mt[0] = mt[N - 1]; i = 1; }
    }
    mt[0] = 0x80000000;
  }

  uint32() {
    const mt = this.state;
    if (this.index >= N) {
      for (let k = 0; k < N; k++) {
        const y = (mt[k] & 0x80000000) | (mt[(k + 1) % N] & 0x7fffffff);
        mt[k] = mt[(k + M) % N] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.index = 0;
    }
    let y = mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    return (y ^ (y >>> 18)) >>> 0;
  }

  getrandbits64() {
    const low = BigInt(this.uint32());
    return (BigInt(this.uint32()) << 32n) | low;
  }
}
