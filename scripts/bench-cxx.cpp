// bench-cxx.cpp - a C++ workload for scripts/bench-dwarf.sh: most of its time
// is in libstdc++ (std::string, std::map, std::regex, streams, sort), so a
// `perf record --call-graph dwarf` profile resolves frames in the program's
// template instantiations, libstdc++.so and libc.
// Usage: bench-cxx [seconds]
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace bench {
struct Record {
	std::string key;
	long value;
};

__attribute__((noinline)) std::vector<Record> make_records(unsigned seed, int n)
{
	std::vector<Record> v;
	v.reserve(n);
	for (int i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		std::ostringstream os;
		os << "key-" << (seed % 9973) << '-' << i % 17;
		v.push_back({ os.str(), long(seed % 100000) });
	}
	return v;
}

__attribute__((noinline)) long tally(const std::vector<Record> &v)
{
	std::map<std::string, long> m;
	std::unordered_map<std::string, long> u;
	for (const auto &r : v) {
		m[r.key] += r.value;
		u[r.key] ^= r.value;
	}
	long s = 0;
	for (const auto &kv : m)
		s += kv.second + long(kv.first.size());
	return s + long(u.size());
}

__attribute__((noinline)) long matches(const std::vector<Record> &v)
{
	static const std::regex re("key-([0-9]+)7-1[0-6]");
	long n = 0;
	for (const auto &r : v)
		n += std::regex_match(r.key, re);
	return n;
}

__attribute__((noinline)) long sorted(std::vector<Record> v)
{
	std::sort(v.begin(), v.end(), [](const Record &a, const Record &b) {
		return a.key < b.key || (a.key == b.key && a.value < b.value);
	});
	return v.front().value + v.back().value;
}
} // namespace bench

int main(int argc, char **argv)
{
	double secs = argc > 1 ? std::atof(argv[1]) : 1.0;
	auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(secs);
	long s = 0;
	unsigned seed = 1;
	while (std::chrono::steady_clock::now() < end) {
		auto v = bench::make_records(seed++, 2000);
		s += bench::tally(v) + bench::matches(v) + bench::sorted(v);
	}
	std::cout << (s & 0xff) << "\n";
	return 0;
}
