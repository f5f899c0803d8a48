//! The prime search of RSA key generation: a random start with its two top bits set,
//! a window of odd numbers after it sieved by the small primes (up to 2^18 for 1024-bit
//! primes, 2^20 beyond: the larger the candidate, the dearer each test a sieve saves),
//! the base-2 Fermat screen of [`crate::montgomery`] on what survives, then, on the rare
//! candidate that passes, Miller-Rabin rounds to random bases as many as Go's key
//! generation runs (helm's keys are judged prime the same way). Two threads search at
//! once, the first two primes found by either make the pair.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

/// How many odd numbers one random start sieves: about eleven primes are among them
/// at 1024 bits, so a window without one is rare (a new start is drawn then).
const WINDOW: usize = 4096;

/// An odd small prime and `⌊2⁶⁴ / p⌋`, for Barrett reduction.
#[derive(Clone, Copy)]
struct SmallPrime {
    p: u64,
    reciprocal: u64,
}

/// The odd primes below `bound`, by the sieve of Eratosthenes.
fn odd_primes_below(bound: usize) -> Vec<SmallPrime> {
    let mut composite = vec![false; bound];
    let mut out = Vec::new();
    for n in 3..bound {
        if n % 2 == 0 || composite[n] {
            continue;
        }
        out.push(SmallPrime {
            p: n as u64,
            reciprocal: (u128::from(u64::MAX) + 1).div_euclid(n as u128) as u64,
        });
        let mut m = n * n;
        while m < bound {
            composite[m] = true;
            m += 2 * n;
        }
    }
    out
}

/// The small primes that sieve candidates of `L` words.
fn small_primes<const L: usize>() -> &'static [SmallPrime] {
    static UP_TO_2_18: OnceLock<Vec<SmallPrime>> = OnceLock::new();
    static UP_TO_2_20: OnceLock<Vec<SmallPrime>> = OnceLock::new();
    if L <= 16 {
        UP_TO_2_18.get_or_init(|| odd_primes_below(1 << 18))
    } else {
        UP_TO_2_20.get_or_init(|| odd_primes_below(1 << 20))
    }
}

/// `n mod p` for every small prime, `n` as little-endian words. Word halves are fed
/// in from the top: `(r·2³² + half) < 2⁵²`, reduced by Barrett (the quotient estimate
/// is short by at most one). Eight primes at a time, so that eight independent chains
/// of multiplications run side by side in registers.
fn residues(n: &[u64], primes: &[SmallPrime]) -> Vec<u64> {
    const LANES: usize = 8;
    let mut out = Vec::with_capacity(primes.len());
    let chunks = primes.chunks_exact(LANES);
    let rest = chunks.remainder();
    for chunk in chunks {
        let mut r = [0u64; LANES];
        for word in n.iter().rev() {
            for half in [word >> 32, word & 0xffff_ffff] {
                for i in 0..LANES {
                    r[i] = reduce((r[i] << 32) | half, chunk[i]);
                }
            }
        }
        out.extend(r);
    }
    for sp in rest {
        let mut r = 0u64;
        for word in n.iter().rev() {
            for half in [word >> 32, word & 0xffff_ffff] {
                r = reduce((r << 32) | half, *sp);
            }
        }
        out.push(r);
    }
    out
}

/// `x mod p` by Barrett reduction, for `x < 2⁵²` and `p < 2²⁰` (then `x − q·p < 2p`).
#[inline(always)]
fn reduce(x: u64, sp: SmallPrime) -> u64 {
    let q = ((u128::from(x) * u128::from(sp.reciprocal)) >> 64) as u64;
    let rem = x - q * sp.p;
    if rem >= sp.p {
        rem - sp.p
    } else {
        rem
    }
}

/// Which of `start + 2k` (k < WINDOW) a small prime divides, for odd `start` with the
/// given residues.
fn sieve(residues: &[u64], primes: &[SmallPrime]) -> Vec<bool> {
    let mut divisible = vec![false; WINDOW];
    for (r, sp) in residues.iter().zip(primes) {
        // start + 2k ≡ 0 (mod p)  ⇔  k ≡ (p − r)/2 (mod p): halve p − r, or p − r + p
        // when that is odd (no division).
        let p = sp.p;
        let x = if *r == 0 { 0 } else { p - r };
        let first = if x % 2 == 0 { x / 2 } else { (x + p) / 2 };
        let mut k = first as usize;
        while k < WINDOW {
            divisible[k] = true;
            k += p as usize;
        }
    }
    divisible
}

/// `start + 2k`, or `None` when that leaves `L` words.
fn offset<const L: usize>(start: &[u64; L], k: usize) -> Option<[u64; L]> {
    let mut out = *start;
    let mut carry = 2 * k as u64;
    for w in out.iter_mut() {
        let (s, c) = w.overflowing_add(carry);
        *w = s;
        carry = c as u64;
        if carry == 0 {
            break;
        }
    }
    (carry == 0).then_some(out)
}

/// A random prime of exactly `L * 64` bits whose two top bits are set, so that the
/// product of two has exactly twice as many bits (as Go's `rsa.GenerateKey` makes them);
/// `None` once `stop` is set.
pub(crate) fn rsa_prime<const L: usize>(stop: &AtomicBool) -> Option<rsa::BigUint> {
    let primes = small_primes::<L>();
    loop {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let Some(mut start) = crate::montgomery::random_words::<L>() else {
            continue;
        };
        start[0] |= 1;
        start[L - 1] |= 0b11 << 62;
        let divisible = sieve(&residues(&start, primes), primes);
        for (k, _) in divisible.iter().enumerate().filter(|(_, d)| !**d) {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let Some(candidate) = offset(&start, k) else {
                break;
            };
            if candidate[L - 1] >> 62 != 0b11 {
                break;
            }
            // Nearly every candidate is composite and fails base-2 Fermat; that test
            // costs less than the full test's first Miller-Rabin round, which the few
            // survivors still go through.
            if crate::montgomery::fermat_base_2(&candidate) && is_prime(&candidate) {
                let le: Vec<u8> = candidate.iter().flat_map(|w| w.to_le_bytes()).collect();
                return Some(rsa::BigUint::from_bytes_le(&le));
            }
        }
    }
}

/// How many Miller-Rabin rounds, each to a random base, Go's RSA key generation asks of
/// a candidate of `bits` bits (FIPS 186-5's table for random candidates, as Go's
/// `crypto/internal/fips140/rsa` counts them): 5 for the 1024-bit primes of a 2048-bit
/// key, 4 for the 2048-bit primes of a 4096-bit key.
fn miller_rabin_rounds(bits: usize) -> usize {
    match bits {
        3747.. => 3,
        1345.. => 4,
        476.. => 5,
        400.. => 6,
        347.. => 7,
        308.. => 8,
        55.. => 27,
        _ => 34,
    }
}

/// Whether `n` (odd, top bit set, already through the base-2 Fermat screen) is prime as
/// Go's RSA key generation decides it: Miller-Rabin to [`miller_rabin_rounds`] random
/// bases, each uniform in `[2, n − 2]` (a draw outside is drawn again, as Go does). A
/// failure of the system's random source counts as composite.
fn is_prime<const L: usize>(n: &[u64; L]) -> bool {
    let Some(m) = crate::montgomery::Modulus::new(n) else {
        return false;
    };
    let mut rounds = miller_rabin_rounds(64 * L);
    while rounds > 0 {
        let Some(base) = crate::montgomery::random_words::<L>() else {
            return false;
        };
        if !m.is_base(&base) {
            continue;
        }
        if !m.strong_probable_prime(&base) {
            return false;
        }
        rounds -= 1;
    }
    true
}

/// Two primes from `prime`, searched on two threads at once: the first two found, by
/// either thread, are the pair (the search is random and dominates key generation; a
/// thread that finds its prime early goes on to help with the second, so the pair takes
/// about as long as one prime takes one thread, not the longer of two searches).
pub(crate) fn prime_pair(
    prime: fn(&AtomicBool) -> Option<rsa::BigUint>,
) -> (rsa::BigUint, rsa::BigUint) {
    let found: Mutex<Vec<rsa::BigUint>> = Mutex::new(Vec::new());
    let stop = AtomicBool::new(false);
    let search = || {
        while let Some(p) = prime(&stop) {
            let mut f = found.lock().unwrap_or_else(|e| e.into_inner());
            f.push(p);
            if f.len() >= 2 {
                stop.store(true, Ordering::Relaxed);
                return;
            }
        }
    };
    std::thread::scope(|scope| {
        let helper = scope.spawn(search);
        search();
        // A helper that failed leaves the search to this thread: it stops only at two.
        let _ = helper.join();
    });
    let mut primes = found.into_inner().unwrap_or_else(|e| e.into_inner());
    let never = AtomicBool::new(false);
    while primes.len() < 2 {
        if let Some(p) = prime(&never) {
            primes.push(p);
        }
    }
    let q = primes.swap_remove(1);
    let p = primes.swap_remove(0);
    (p, q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn residues_and_the_sieve_agree_with_division() {
        let primes = &odd_primes_below(1 << 12);
        assert_eq!(primes.len(), 563); // π(4096) = 564, less the prime 2
        let mut seed = 0x853c_49e6_748f_ea9bu64;
        for _ in 0..20 {
            let mut n = [0u64; 16];
            for w in n.iter_mut() {
                *w = crate::montgomery::xorshift(&mut seed);
            }
            n[0] |= 1;
            let big = |w: &[u64; 16]| {
                let le: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
                rsa::BigUint::from_bytes_le(&le)
            };
            let r = residues(&n, primes);
            for (r, sp) in r.iter().zip(primes) {
                assert_eq!(rsa::BigUint::from(*r), big(&n) % sp.p);
            }
            let divisible = sieve(&r, primes);
            for k in [0usize, 1, 2, 3, 100, 1000, WINDOW - 1] {
                let c = big(&offset(&n, k).unwrap());
                let expected = primes
                    .iter()
                    .any(|sp| (&c % sp.p) == rsa::BigUint::from(0u32));
                assert_eq!(divisible[k], expected, "k = {k}");
            }
        }
    }

    #[test]
    fn primes_have_their_two_top_bits_set_and_pass_the_full_test() {
        let never = AtomicBool::new(false);
        let p = rsa_prime::<16>(&never).unwrap();
        assert_eq!(p.bits(), 1024);
        assert_eq!((&p >> 1022usize), rsa::BigUint::from(3u32));
        let stop = AtomicBool::new(true);
        assert!(rsa_prime::<16>(&stop).is_none());
    }

    /// The test of the found primes (Go's rounds) says what `crypto-primes`' Baillie-PSW
    /// test says, on the primes the search finds and on numbers next to them (composite,
    /// mostly).
    #[test]
    fn the_primality_test_agrees_with_crypto_primes() {
        let never = AtomicBool::new(false);
        let to_words = |p: &rsa::BigUint| {
            let mut w = [0u64; 16];
            for (i, d) in p.to_bytes_le().chunks(8).enumerate() {
                let mut b = [0u8; 8];
                b[..d.len()].copy_from_slice(d);
                w[i] = u64::from_le_bytes(b);
            }
            w
        };
        for _ in 0..6 {
            let p = rsa_prime::<16>(&never).expect("a prime");
            for k in [0u64, 2, 4, 6, 8, 10, 12, 14] {
                let q = &p + rsa::BigUint::from(k);
                let w = to_words(&q);
                let le: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
                let theirs = crypto_primes::is_prime_with_rng(
                    &mut p256::elliptic_curve::rand_core::OsRng,
                    &crypto_bigint::Uint::<16>::from_le_slice(&le),
                );
                assert_eq!(is_prime(&w), theirs, "{q}");
                if k == 0 {
                    assert!(theirs, "{q}");
                }
            }
        }
    }

    #[test]
    fn rounds_follow_go_and_bases_stay_between_two_and_n_minus_two() {
        assert_eq!(miller_rabin_rounds(1024), 5);
        assert_eq!(miller_rabin_rounds(2048), 4);
        assert_eq!(miller_rabin_rounds(4096), 3);
        assert_eq!(miller_rabin_rounds(512), 5);
        assert_eq!(miller_rabin_rounds(64), 27);
        assert_eq!(miller_rabin_rounds(32), 34);
        let n = [0xffff_ffff_ffff_ff61u64, u64::MAX]; // odd, top bit set
        let m = crate::montgomery::Modulus::new(&n).expect("a modulus");
        for (b, ok) in [
            ([0u64, 0], false),
            ([1, 0], false),
            ([2, 0], true),
            ([3, 1], true),
            ([n[0] - 3, n[1]], true),  // n − 3
            ([n[0] - 2, n[1]], true),  // n − 2
            ([n[0] - 1, n[1]], false), // n − 1
            (n, false),
            ([u64::MAX, u64::MAX], false),
        ] {
            assert_eq!(m.is_base(&b), ok, "{b:?}");
        }
    }

    #[test]
    fn an_offset_past_the_words_is_none() {
        assert_eq!(offset(&[u64::MAX - 1], 1), None);
        assert_eq!(offset(&[1u64, 0], 1), Some([3, 0]));
    }
}
