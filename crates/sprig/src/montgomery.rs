//! Montgomery arithmetic on fixed-size limbs, for RSA: the base-2 Fermat test that
//! screens prime candidates (nearly every candidate the sieve lets through is composite
//! and fails it, so it is where key generation spends its time) and the modular
//! exponentiation of RSA-CRT signing. Products are computed double-width, then
//! reduced; both passes go two rows at a time, so that two carry chains run side by
//! side (one chain of dependent add-with-carries is what bounds the speed). No
//! allocation, no division: every modulus has its top bit set, so R mod n is simply
//! 2^(64·L) − n.

/// `-n⁻¹ mod 2⁶⁴` for odd `n0` (Newton's iteration doubles the correct low bits).
fn neg_inverse(n0: u64) -> u64 {
    let mut x: u64 = 1;
    for _ in 0..6 {
        x = x.wrapping_mul(2u64.wrapping_sub(n0.wrapping_mul(x)));
    }
    x.wrapping_neg()
}

/// Whether `x < y`, both little-endian words.
#[inline(always)]
fn below<const L: usize>(x: &[u64; L], y: &[u64; L]) -> bool {
    for i in (0..L).rev() {
        if x[i] != y[i] {
            return x[i] < y[i];
        }
    }
    false
}

/// `L` words from the system's random source (`None` when it fails).
pub(crate) fn random_words<const L: usize>() -> Option<[u64; L]> {
    let mut bytes = vec![0u8; L * 8];
    getrandom::getrandom(&mut bytes).ok()?;
    let mut words = [0u64; L];
    for (w, chunk) in words.iter_mut().zip(bytes.chunks(8)) {
        let mut b = [0u8; 8];
        b.copy_from_slice(chunk);
        *w = u64::from_le_bytes(b);
    }
    Some(words)
}

/// `a·b + c + d` as (low, high) words: never overflows 128 bits.
#[inline(always)]
fn mul_add(a: u64, b: u64, c: u64, d: u64) -> (u64, u64) {
    let v = a as u128 * b as u128 + c as u128 + d as u128;
    (v as u64, (v >> 64) as u64)
}

/// `(lo, hi) += a·b`, three words (`lo` two of them) holding a column's sum. Written
/// word by word: LLVM turns this into one add-with-carry chain, where a `u128`
/// `overflowing_add` became compares and flag arithmetic.
#[inline(always)]
fn mac(lo: &mut u128, hi: &mut u64, a: u64, b: u64) {
    let p = a as u128 * b as u128;
    let s0 = (*lo as u64) as u128 + (p as u64) as u128;
    let s1 = ((*lo >> 64) as u64) as u128 + (p >> 64) + (s0 >> 64);
    *lo = (s0 as u64 as u128) | ((s1 as u64 as u128) << 64);
    *hi += (s1 >> 64) as u64;
}

/// The running sum of [`Modulus::square`]: the Montgomery factors found so far, the
/// result's words, and the column sum carried into the next column.
struct Columns<const L: usize> {
    m: [u64; L],
    r: [u64; L],
    lo: u128,
    hi: u64,
}

impl<const L: usize> Columns<L> {
    /// Column `I` of `a²` and of the reduction: every product whose indices add up to
    /// `I`. `I` and `L` are constants, so each column's loops unroll completely (the
    /// same loops over a run-time column index run about 60% slower); columns from
    /// `2L − 1` on do nothing.
    #[inline(always)]
    fn column<const I: usize>(&mut self, a: &[u64; L], n: &[u64; L], inv: u64) {
        if I >= 2 * L - 1 {
            return;
        }
        let first = (I + 1).saturating_sub(L);
        // The cross products a[j]·a[I−j] (j < I − j) once, doubled.
        let mut clo: u128 = 0;
        let mut chi: u64 = 0;
        let mut j = first;
        while 2 * j < I {
            mac(&mut clo, &mut chi, a[j], a[I - j]);
            j += 1;
        }
        if j > first {
            let top = (clo >> 127) as u64;
            let doubled = clo << 1;
            let s0 = (self.lo as u64) as u128 + (doubled as u64) as u128;
            let s1 = ((self.lo >> 64) as u64) as u128 + (doubled >> 64) + (s0 >> 64);
            self.lo = (s0 as u64 as u128) | ((s1 as u64 as u128) << 64);
            self.hi += (s1 >> 64) as u64 + (chi << 1) + top;
        }
        if I.is_multiple_of(2) {
            mac(&mut self.lo, &mut self.hi, a[I / 2], a[I / 2]);
        }
        if I < L {
            // The reduction's products m[j]·n[I−j], then this column's factor, chosen so
            // that the column's low word becomes zero.
            for j in 0..I {
                mac(&mut self.lo, &mut self.hi, self.m[j], n[I - j]);
            }
            let mi = (self.lo as u64).wrapping_mul(inv);
            self.m[I] = mi;
            mac(&mut self.lo, &mut self.hi, mi, n[0]);
        } else {
            for j in first..L {
                mac(&mut self.lo, &mut self.hi, self.m[j], n[I - j]);
            }
            self.r[I - L] = self.lo as u64;
        }
        self.lo = (self.lo >> 64) | ((self.hi as u128) << 64);
        self.hi = 0;
    }
}

/// The columns of a square of up to 32 words, in order.
macro_rules! all_columns {
    ($c:expr, $a:expr, $n:expr, $inv:expr; $($i:literal)*) => {
        $( $c.column::<$i>($a, $n, $inv); )*
    };
}

/// An odd modulus of exactly `64·L` bits.
pub(crate) struct Modulus<const L: usize> {
    n: [u64; L],
    inv: u64,
}

impl<const L: usize> Modulus<L> {
    /// `None` unless `n` (little-endian words) is odd with its top bit set.
    pub(crate) fn new(n: &[u64; L]) -> Option<Self> {
        if L == 0 || n[0] & 1 == 0 || n[L - 1] >> 63 == 0 {
            return None;
        }
        Some(Modulus {
            n: *n,
            inv: neg_inverse(n[0]),
        })
    }

    /// `x − n` when `carry` is set or `x ≥ n` (x < 2n).
    #[inline(always)]
    fn reduce_once(&self, x: &mut [u64; L], carry: u64) {
        if carry != 0 || !below(x, &self.n) {
            let mut borrow = false;
            for (xi, ni) in x.iter_mut().zip(&self.n) {
                let (d, b1) = xi.overflowing_sub(*ni);
                let (d, b2) = d.overflowing_sub(borrow as u64);
                *xi = d;
                borrow = b1 || b2;
            }
        }
    }

    /// `t·R⁻¹ mod n` for `t < n·R` given as `2L` words (low half first; `t` is
    /// overwritten), two rows of the reduction at a time: the second row's factor is
    /// known once the first row's first two products are in, and from there the two
    /// rows' carry chains run side by side over the same words.
    #[inline(always)]
    fn redc(&self, t: &mut [[u64; L]; 2]) -> [u64; L] {
        let t = t.as_flattened_mut();
        let n = &self.n;
        let mut extra = 0u64;
        let mut i = 0;
        while i + 1 < L {
            let m0 = t[i].wrapping_mul(self.inv);
            let (_, c) = mul_add(m0, n[0], t[i], 0);
            let (v, mut c0) = mul_add(m0, n[1], t[i + 1], c);
            let m1 = v.wrapping_mul(self.inv);
            let (_, mut c1) = mul_add(m1, n[0], v, 0);
            for j in 2..L {
                let (v, c) = mul_add(m0, n[j], t[i + j], c0);
                c0 = c;
                let (v, c) = mul_add(m1, n[j - 1], v, c1);
                c1 = c;
                t[i + j] = v;
            }
            // Word i + L: row i's carry, row i + 1's last product and carry, and what
            // the previous pair left over; the overflow goes to word i + L + 1 now,
            // and what overflows that waits for the next pair.
            let (lo, hi) = mul_add(m1, n[L - 1], t[i + L], c1);
            let s = lo as u128 + c0 as u128 + extra as u128;
            t[i + L] = s as u64;
            let s = t[i + L + 1] as u128 + hi as u128 + (s >> 64);
            t[i + L + 1] = s as u64;
            extra = (s >> 64) as u64;
            i += 2;
        }
        if i < L {
            let m = t[i].wrapping_mul(self.inv);
            let mut carry = 0u64;
            for j in 0..L {
                (t[i + j], carry) = mul_add(m, n[j], t[i + j], carry);
            }
            (t[i + L], extra) = mul_add(1, t[i + L], carry, extra);
        }
        let mut out = [0u64; L];
        out.copy_from_slice(&t[L..]);
        self.reduce_once(&mut out, extra);
        out
    }

    /// `a²·R⁻¹ mod n` (a < n), column by column (product scanning): the square's cross
    /// products once, doubled, and the reduction's products summed into each column, so
    /// that the sum stays in registers. For moduli of up to 32 words (RSA primes of
    /// 2048-bit keys have 16, of 4096-bit keys 32); longer ones are squared by [`Self::mul`].
    pub(crate) fn square(&self, a: &[u64; L]) -> [u64; L] {
        if L > 32 {
            return self.mul(a, a);
        }
        let mut c = Columns {
            m: [0u64; L],
            r: [0u64; L],
            lo: 0,
            hi: 0,
        };
        all_columns!(c, a, &self.n, self.inv;
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30
            31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58
            59 60 61 62);
        let mut r = c.r;
        r[L - 1] = c.lo as u64;
        self.reduce_once(&mut r, (c.lo >> 64) as u64);
        r
    }

    /// `a·b·R⁻¹ mod n` (a, b < n).
    pub(crate) fn mul(&self, a: &[u64; L], b: &[u64; L]) -> [u64; L] {
        let mut wide = [[0u64; L]; 2];
        {
            let t = wide.as_flattened_mut();
            for i in 0..L {
                let mut carry = 0u64;
                for j in 0..L {
                    (t[i + j], carry) = mul_add(a[i], b[j], t[i + j], carry);
                }
                t[i + L] = carry;
            }
        }
        self.redc(&mut wide)
    }

    /// `2a mod n` (a < n).
    #[inline(always)]
    fn double(&self, a: &mut [u64; L]) {
        let mut shifted_out = 0u64;
        for w in a.iter_mut() {
            let next = *w >> 63;
            *w = (*w << 1) | shifted_out;
            shifted_out = next;
        }
        self.reduce_once(a, shifted_out);
    }

    /// One in Montgomery form: R mod n = R − n (n > R/2).
    fn one(&self) -> [u64; L] {
        let mut one = [0u64; L];
        let mut borrow = false;
        for (oi, ni) in one.iter_mut().zip(&self.n) {
            let (d, b1) = 0u64.overflowing_sub(*ni);
            let (d, b2) = d.overflowing_sub(borrow as u64);
            *oi = d;
            borrow = b1 || b2;
        }
        one
    }

    /// R² mod n: R mod n doubled 64·L times (what takes a number into Montgomery form).
    fn r_squared(&self) -> [u64; L] {
        let mut r2 = self.one();
        for _ in 0..64 * L {
            self.double(&mut r2);
        }
        r2
    }

    /// `a^e mod n` for `a < n` in ordinary form; `e` in little-endian words. Fixed
    /// four-bit windows over the exponent.
    pub(crate) fn pow(&self, a: &[u64; L], e: &[u64]) -> [u64; L] {
        let x = self.pow_montgomery(&self.mul(a, &self.r_squared()), e);
        // Out of Montgomery form: times one, reduced.
        let mut unit = [0u64; L];
        unit[0] = 1;
        self.mul(&x, &unit)
    }

    /// `a^e` for `a` in Montgomery form, in Montgomery form.
    fn pow_montgomery(&self, a: &[u64; L], e: &[u64]) -> [u64; L] {
        let mut table = [[0u64; L]; 16];
        table[0] = self.one();
        table[1] = *a;
        for k in 2..16 {
            table[k] = self.mul(&table[k - 1], &table[1]);
        }
        let mut x = table[0];
        for word in e.iter().rev() {
            for nibble in (0..16).rev() {
                for _ in 0..4 {
                    x = self.square(&x);
                }
                let d = ((word >> (4 * nibble)) & 15) as usize;
                x = self.mul(&x, &table[d]);
            }
        }
        x
    }

    /// `2^e` in Montgomery form, left to right from `e`'s top bit, each step a square
    /// and, for a one bit, a doubling (cheaper than a multiplication).
    fn pow_of_two(&self, e: &[u64; L]) -> [u64; L] {
        let mut x = self.one();
        for bit in (0..64 * L).rev() {
            x = self.square(&x);
            if (e[bit / 64] >> (bit % 64)) & 1 == 1 {
                self.double(&mut x);
            }
        }
        x
    }

    /// Whether `b` (little-endian words) lies in `[2, n − 2]`, the bases Miller-Rabin
    /// takes.
    pub(crate) fn is_base(&self, b: &[u64; L]) -> bool {
        let mut two = [0u64; L];
        two[0] = 2;
        // n − 1 (n is odd, so only the low bit changes): b must be below it.
        let mut n_minus_one = self.n;
        n_minus_one[0] &= !1;
        !below(b, &two) && below(b, &n_minus_one)
    }

    /// Miller-Rabin's strong probable prime test of the modulus to `base` (in ordinary
    /// form, `1 < base < n − 1`, see [`Self::is_base`]): with `n − 1 = d·2^s`,
    /// `base^d ≡ 1` or `base^(d·2^r) ≡ −1` for some `r < s`.
    pub(crate) fn strong_probable_prime(&self, base: &[u64; L]) -> bool {
        let one = self.one();
        // −1 in Montgomery form: n − (R mod n).
        let mut minus_one = [0u64; L];
        let mut borrow = false;
        for i in 0..L {
            let (d, b1) = self.n[i].overflowing_sub(one[i]);
            let (d, b2) = d.overflowing_sub(borrow as u64);
            minus_one[i] = d;
            borrow = b1 || b2;
        }
        // n − 1 = d·2^s (n is odd).
        let mut d = self.n;
        d[0] &= !1;
        let s = d
            .iter()
            .position(|w| *w != 0)
            .map_or(0, |i| 64 * i + d[i].trailing_zeros() as usize);
        if s == 0 {
            return false;
        }
        let (words, bits) = (s / 64, s % 64);
        for i in 0..L {
            let lo = d.get(i + words).copied().unwrap_or(0);
            let hi = d.get(i + words + 1).copied().unwrap_or(0);
            d[i] = if bits == 0 {
                lo
            } else {
                (lo >> bits) | (hi << (64 - bits))
            };
        }
        let mut x = self.pow_montgomery(&self.mul(base, &self.r_squared()), &d);
        if x == one || x == minus_one {
            return true;
        }
        for _ in 1..s {
            x = self.square(&x);
            if x == minus_one {
                return true;
            }
            if x == one {
                return false;
            }
        }
        false
    }
}

/// Whether 2^(n−1) ≡ 1 (mod n), for `n` given as `L` little-endian words, odd, with its
/// top bit set (as every RSA prime candidate is). Anything else is `false`.
pub(crate) fn fermat_base_2<const L: usize>(n: &[u64; L]) -> bool {
    let Some(m) = Modulus::new(n) else {
        return false;
    };
    // e = n − 1 (n is odd: clear the low bit).
    let mut e = *n;
    e[0] &= !1;
    m.pow_of_two(&e) == m.one()
}

/// A deterministic stream of words for tests (xorshift).
#[cfg(test)]
pub(crate) fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first prime from `n` on (by `crypto-primes`), when it still has 1024 bits.
    fn prime_from(n: U1024) -> Option<U1024> {
        let p = crypto_primes::hazmat::Sieve::new(&n, 1024, false).find(|c| {
            crypto_primes::is_prime_with_rng(&mut p256::elliptic_curve::rand_core::OsRng, c)
        })?;
        (p.bits() == 1024).then_some(p)
    }
    use crypto_bigint::modular::runtime_mod::{DynResidue, DynResidueParams};
    use crypto_bigint::{Encoding, Uint, U1024};

    /// The oracle: crypto-bigint's modular exponentiation.
    fn oracle(n: &U1024) -> bool {
        let params = DynResidueParams::new(n);
        let two = DynResidue::new(&Uint::from_u64(2), params);
        two.pow(&n.wrapping_sub(&U1024::ONE)).retrieve() == U1024::ONE
    }

    fn words(n: &U1024) -> [u64; 16] {
        let mut out = [0u64; 16];
        for (i, chunk) in n.to_le_bytes().chunks(8).enumerate() {
            out[i] = u64::from_le_bytes(chunk.try_into().unwrap());
        }
        out
    }

    #[test]
    fn agrees_with_modular_exponentiation_on_random_and_prime_moduli() {
        let mut seen_prime = 0;
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || xorshift(&mut seed);
        for round in 0..400 {
            let mut limbs = [0u64; 16];
            for l in limbs.iter_mut() {
                *l = next();
            }
            limbs[0] |= 1;
            limbs[15] |= 1 << 63;
            let mut bytes = Vec::new();
            for l in limbs {
                bytes.extend(l.to_le_bytes());
            }
            let mut n = U1024::from_le_slice(&bytes);
            if round % 4 == 0 {
                // A prime near it (so both answers occur).
                let Some(p) = prime_from(n) else { continue };
                n = p;
            }
            let ours = fermat_base_2(&words(&n));
            assert_eq!(ours, oracle(&n), "{n}");
            seen_prime += usize::from(ours);
        }
        assert!(seen_prime >= 90, "{seen_prime}");
    }

    /// Squares of 16 and 32 words (column by column) against products of the same
    /// numbers (row by row), on random values and the extremes below the modulus.
    fn square_is_mul_by_itself<const L: usize>(seed: &mut u64) {
        let mut next = || xorshift(seed);
        for round in 0..300 {
            let mut n = [0u64; L];
            n.iter_mut().for_each(|w| *w = next());
            n[0] |= 1;
            n[L - 1] |= 1 << 63;
            if round % 10 == 0 {
                // All ones: every carry chain runs its full length.
                n = [u64::MAX; L];
            }
            let m = Modulus::new(&n).expect("odd, top bit set");
            let mut below = n;
            below[0] -= 1;
            let mut random = [0u64; L];
            random.iter_mut().for_each(|w| *w = next());
            random[L - 1] &= (1 << 62) - 1;
            let mut one = [0u64; L];
            one[0] = 1;
            for a in [below, random, one, [0u64; L]] {
                assert_eq!(m.square(&a), m.mul(&a, &a), "round {round}");
            }
        }
    }

    #[test]
    fn squares_equal_products() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        square_is_mul_by_itself::<16>(&mut seed);
        square_is_mul_by_itself::<32>(&mut seed);
        square_is_mul_by_itself::<3>(&mut seed);
    }

    /// The strong test, base 2 and other bases, against `crypto-primes`' Miller-Rabin on
    /// random odd moduli (a few prime: most fail), primes near them, and numbers built
    /// to have many factors of two in `n − 1`.
    #[test]
    fn strong_test_agrees_with_crypto_primes() {
        use crypto_primes::hazmat::MillerRabin;
        let mut seed = 0x6a09_e667_f3bc_c909u64;
        let mut next = || xorshift(&mut seed);
        let mut primes = 0;
        for round in 0..120 {
            let mut limbs = [0u64; 16];
            limbs.iter_mut().for_each(|w| *w = next());
            limbs[0] |= 1;
            limbs[15] |= 1 << 63;
            if round % 3 == 1 {
                // n − 1 divisible by a high power of two.
                limbs[0] = 1;
                limbs[1] &= !0xffff;
            }
            let bytes: Vec<u8> = limbs.iter().flat_map(|w| w.to_le_bytes()).collect();
            let mut n = U1024::from_le_slice(&bytes);
            if round % 3 == 0 {
                let Some(p) = prime_from(n) else { continue };
                n = p;
            }
            let m = Modulus::new(&words(&n)).expect("odd, top bit set");
            let mr = MillerRabin::new(&n);
            let mut two = [0u64; 16];
            two[0] = 2;
            let ours = m.strong_probable_prime(&two);
            assert_eq!(ours, mr.test_base_two().is_probably_prime(), "{n}");
            primes += usize::from(ours);
            let mut base = [0u64; 16];
            base.iter_mut().for_each(|w| *w = next());
            base[15] >>= 2;
            base[0] |= 3;
            let b = U1024::from_le_slice(
                &base
                    .iter()
                    .flat_map(|w| w.to_le_bytes())
                    .collect::<Vec<u8>>(),
            );
            assert_eq!(
                m.strong_probable_prime(&base),
                mr.test(&b).is_probably_prime(),
                "{n} to {b}"
            );
        }
        assert!(primes >= 30, "{primes}");
    }

    #[test]
    fn refuses_even_and_short_moduli() {
        assert!(!fermat_base_2(&[10u64, 1 << 63]));
        assert!(!fermat_base_2(&[11u64, 1]));
    }

    #[test]
    fn negative_inverse_is_exact() {
        for n0 in [1u64, 3, 0xffff_ffff_ffff_ffff, 0x1234_5678_9abc_def1] {
            assert_eq!(n0.wrapping_mul(neg_inverse(n0)), u64::MAX);
        }
    }
}
