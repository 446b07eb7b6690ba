// cxx.cpp - C++ names: namespaces, class templates, an anonymous namespace,
// operators, constructor/destructor aliases, lambdas (passed to a function template and used as a std::sort
// comparator: samples land in std:: template instantiations), 64 cold functions.
#include <algorithm>
#include <vector>
#include "corpus.h"

CORPUS_COLD64(cxx)

namespace corpus {
namespace detail {
template <typename T, int N> struct Mixer {
	__attribute__((noinline)) static T churn(T x)
	{
		for (int i = 0; i < 1500; i++)
			x = x * T(6364136223846793005ull) + T(N);
		if (__builtin_expect(x == T(12345), 0))
			return rare(x);
		return x;
	}
	__attribute__((noinline)) static T rare(T x) { return x + T(N) * T(3); }
};
} // namespace detail

class Engine {
public:
	explicit Engine(unsigned long s) : state_(s) {}
	__attribute__((noinline)) unsigned long step(unsigned long k);
	__attribute__((noinline)) Engine &operator+=(unsigned long k)
	{
		for (int i = 0; i < 700; i++)
			state_ = (state_ ^ k) * 0x100000001b3ull;
		return *this;
	}
	unsigned long state() const { return state_; }

private:
	unsigned long state_;
};

unsigned long Engine::step(unsigned long k)
{
	for (int i = 0; i < 900; i++)
		state_ = (state_ << 7) ^ (state_ >> 3) ^ k;
	return state_;
}

// A hot constructor and destructor: GCC emits the complete-object C1/D1
// symbols as aliases of the base-object C2/D2 ones (same address; perf keeps
// one of them, choosing by demangled name length).
class Accum {
public:
	__attribute__((noinline)) explicit Accum(unsigned long seed);
	__attribute__((noinline)) ~Accum();
	unsigned long v;
};

Accum::Accum(unsigned long seed) : v(seed)
{
	for (int i = 0; i < 900; i++)
		v = (v * 0xff51afd7ed558ccdull) ^ (v >> 29);
}

volatile unsigned long accum_sink;

Accum::~Accum()
{
	unsigned long w = v;

	for (int i = 0; i < 600; i++)
		w = (w ^ (w >> 31)) * 0xc4ceb9fe1a85ec53ull;
	accum_sink = w;
}
} // namespace corpus

namespace {
__attribute__((noinline)) unsigned long anon_spin(unsigned long x)
{
	for (int i = 0; i < 800; i++)
		x = x * 31 + 17;
	return x;
}
} // namespace

template <typename F> __attribute__((noinline)) unsigned long apply_twice(F f, unsigned long x)
{
	return f(f(x));
}

int main(int argc, char **argv)
{
	corpus_arm(argc > 1 ? argv[1] : nullptr);
	std::vector<int> v(64);
	corpus::Engine eng(7);
	unsigned long x = 1;
	auto lam = [](unsigned long y) __attribute__((noinline)) {
		for (int i = 0; i < 1000; i++)
			y = (y ^ (y >> 9)) * 0x9e3779b97f4a7c15ull;
		return y;
	};
	while (!corpus_stop) {
		x = apply_twice(lam, x);
		x = corpus::detail::Mixer<unsigned long, 7>::churn(x);
		x += (unsigned long)corpus::detail::Mixer<double, 3>::churn((double)(x & 0xff));
		eng += x;
		x ^= eng.step(x);
		x = anon_spin(x);
		{
			corpus::Accum acc(x);
			x ^= acc.v;
		}
		for (size_t i = 0; i < v.size(); i++)
			v[i] = (int)((x >> (i % 48)) * (i + 1));
		std::sort(v.begin(), v.end(), [](int a, int b) { return (a ^ 0x55) < (b ^ 0x55); });
		x += (unsigned long)v[3];
	}
	if (argc > 99)
		x += cxx_cold_11(x);
	return x == 0xdeadbeefUL;
}
