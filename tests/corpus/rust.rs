// rust.rs - Rust names: modules, a generic impl, a trait impl, a closure passed
// to a generic function. Built with -C force-frame-pointers=yes -C opt-level=1.
// Usage: rust [seconds]
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

mod engine {
    pub struct Mixer<T> {
        pub v: T,
    }

    impl Mixer<u64> {
        #[inline(never)]
        pub fn churn(&mut self, k: u64) -> u64 {
            for _ in 0..1500 {
                self.v = self.v.wrapping_mul(6364136223846793005).wrapping_add(k);
            }
            self.v
        }
    }

    pub trait Spin {
        fn spin(&self, x: u64) -> u64;
    }

    pub struct Shifter;

    impl Spin for Shifter {
        #[inline(never)]
        fn spin(&self, mut x: u64) -> u64 {
            for _ in 0..1200 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
            }
            x
        }
    }
}

#[inline(never)]
fn apply<F: Fn(u64) -> u64>(f: F, x: u64) -> u64 {
    f(f(x))
}

fn main() {
    let secs: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0.3);
    let stop = Arc::new(AtomicBool::new(false));
    let s2 = stop.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs_f64(secs));
        s2.store(true, Ordering::Relaxed);
    });
    let mut m = engine::Mixer { v: 1u64 };
    let sh = engine::Shifter;
    let mut x = 1u64;
    let add = std::hint::black_box(0x9e3779b97f4a7c15u64);
    let clo = move |y: u64| {
        let mut z = y;
        for _ in 0..800 {
            z = (z ^ (z >> 9)).wrapping_mul(add);
        }
        z
    };
    while !stop.load(Ordering::Relaxed) {
        x = m.churn(x);
        x = engine::Spin::spin(&sh, x);
        x = apply(&clo, x);
    }
    std::process::exit(if x == 0xdeadbeef { 1 } else { 0 });
}
