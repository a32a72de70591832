// kite-fabric: the switch between emulated hosts.
//
// N ports, each either a UDP socket (QEMU `-netdev dgram`: one datagram per
// frame) or a listening unix stream socket (QEMU `-netdev stream`: 4-byte
// big-endian length, then the frame). Modes:
//   wire    exactly 2 ports, everything forwarded to the other one (a cable);
//   switch  MAC learning bridge (unknown, broadcast and multicast flood).
//
// Ports flagged `fcs` carry frames with their 4-byte Ethernet FCS (Kite cards)
// plus link-signalling ordered sets: frames shorter than 64 bytes starting
// with "KITEOS". Between an fcs and a non-fcs port (virtio-net, e1000e) the
// FCS is checked and stripped, or padded-to-60 and appended; ordered sets never
// leave their link except through a `wire` between two fcs ports.
//
// Impairments: --loss PCT (seeded PRNG, deterministic per --seed), --delay-us N.
// Not implemented yet, and therefore refused: --ecn-threshold, --pfc, --rate.
//
// Counters go to stderr on SIGUSR1 and at exit (SIGTERM, SIGINT, parent death).
// "kite-fabric: ready" is printed on stdout once every port listens.
#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <map>
#include <netinet/in.h>
#include <poll.h>
#include <string>
#include <string_view>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <vector>

namespace {

constexpr size_t kMaxFrame = 69632;  // QEMU's NET_BUFSIZE
constexpr size_t kMinFcsFrame = 64;
constexpr size_t kOutCap = 16u << 20;  // per unix port, then drop
constexpr char kOsMagic[] = "KITEOS";

std::string g_name = "fabric";

[[noreturn]] void die(const char *fmt, const std::string &a = "", const std::string &b = "")
{
	fprintf(stderr, "kite-fabric[%s]: ", g_name.c_str());
	fprintf(stderr, fmt, a.c_str(), b.c_str());
	fputc('\n', stderr);
	exit(2);
}

uint32_t crc_table[256];

void crc_init()
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

uint32_t crc32(const uint8_t *p, size_t n)
{
	uint32_t c = 0xFFFFFFFFu;
	while (n--)
		c = crc_table[(c ^ *p++) & 0xFF] ^ (c >> 8);
	return c ^ 0xFFFFFFFFu;
}

uint64_t now_ns()
{
	timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// splitmix64: small, seedable, the same sequence everywhere
struct Rng {
	uint64_t s;
	uint64_t next()
	{
		uint64_t z = (s += 0x9E3779B97F4A7C15ull);
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
		z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
		return z ^ (z >> 31);
	}
	double uniform() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }
};

struct Counters {
	uint64_t rx_frames = 0, rx_bytes = 0, tx_frames = 0, tx_bytes = 0;
	uint64_t os_rx = 0, os_tx = 0, os_dropped = 0, bad_fcs = 0, runts = 0, oversize = 0;
	uint64_t loss_dropped = 0, full_dropped = 0, tx_errors = 0, connects = 0;
};

enum class Kind { Udp, Unix };

struct Port {
	int index = 0;
	Kind kind = Kind::Udp;
	bool fcs = false;
	std::string spec;
	int fd = -1;         // udp socket, or the unix connection
	int listen_fd = -1;  // unix only
	sockaddr_in remote{};
	std::string path;
	std::vector<uint8_t> rxbuf;  // unix: partial input
	std::deque<std::vector<uint8_t>> out;  // unix: pending output (with length prefix)
	size_t out_off = 0, out_bytes = 0;
	Counters c;
};

struct Delayed {
	uint64_t due;
	int port;
	std::vector<uint8_t> frame;
};

struct Options {
	std::string mode = "wire";
	double loss = 0;
	uint64_t delay_us = 0;
	uint64_t seed = 1;
	int sockbuf = 8 << 20;
};

Options opt;
std::vector<Port> ports;
std::map<uint64_t, std::pair<int, uint64_t>> fdb;  // MAC -> (port, last seen ns)
std::deque<Delayed> delayq;  // constant delay: FIFO order is release order
Rng rng;

void set_nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

void size_buffers(int fd)
{
	int v = opt.sockbuf;
	// the *FORCE variants ignore rmem_max/wmem_max (root); fall back if refused
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof v) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof v);
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof v) < 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof v);
}

sockaddr_in inet_addr_of(const std::string &host, const std::string &port, const std::string &spec)
{
	sockaddr_in a{};
	a.sin_family = AF_INET;
	char *end = nullptr;
	long p = strtol(port.c_str(), &end, 10);
	if (port.empty() || *end || p < 0 || p > 65535)
		die("bad port number in '%s'", spec);
	a.sin_port = htons(uint16_t(p));
	if (inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1)
		die("bad IPv4 address in '%s'", spec);
	return a;
}

std::vector<std::string> split(const std::string &s, char sep)
{
	std::vector<std::string> v;
	size_t b = 0;
	for (;;) {
		size_t e = s.find(sep, b);
		v.push_back(s.substr(b, e == std::string::npos ? std::string::npos : e - b));
		if (e == std::string::npos)
			return v;
		b = e + 1;
	}
}

// udp:LHOST:LPORT:RHOST:RPORT[,fcs]   unix:PATH[,fcs]
Port parse_port(const std::string &spec, int index)
{
	Port p;
	p.index = index;
	p.spec = spec;
	auto parts = split(spec, ',');
	for (size_t i = 1; i < parts.size(); i++) {
		if (parts[i] == "fcs")
			p.fcs = true;
		else
			die("unknown port flag '%s' in '%s'", parts[i], spec);
	}
	const std::string &addr = parts[0];
	if (addr.rfind("udp:", 0) == 0) {
		auto f = split(addr.substr(4), ':');
		if (f.size() != 4)
			die("want udp:LHOST:LPORT:RHOST:RPORT, got '%s'", spec);
		p.kind = Kind::Udp;
		sockaddr_in local = inet_addr_of(f[0], f[1], spec);
		p.remote = inet_addr_of(f[2], f[3], spec);
		p.fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (p.fd < 0)
			die("socket: %s", strerror(errno));
		int one = 1;
		setsockopt(p.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		if (bind(p.fd, reinterpret_cast<sockaddr *>(&local), sizeof local) < 0)
			die("bind %s: %s", spec, strerror(errno));
		size_buffers(p.fd);
		set_nonblock(p.fd);
	} else if (addr.rfind("unix:", 0) == 0) {
		p.kind = Kind::Unix;
		p.path = addr.substr(5);
		sockaddr_un su{};
		su.sun_family = AF_UNIX;
		if (p.path.empty() || p.path.size() >= sizeof su.sun_path)
			die("unix socket path empty or too long in '%s'", spec);
		memcpy(su.sun_path, p.path.c_str(), p.path.size());
		unlink(p.path.c_str());
		p.listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (p.listen_fd < 0)
			die("socket: %s", strerror(errno));
		if (bind(p.listen_fd, reinterpret_cast<sockaddr *>(&su), sizeof su) < 0)
			die("bind %s: %s", spec, strerror(errno));
		if (listen(p.listen_fd, 4) < 0)
			die("listen %s: %s", spec, strerror(errno));
		set_nonblock(p.listen_fd);
	} else {
		die("port '%s': want udp:... or unix:...", spec);
	}
	return p;
}

void print_counters(const char *why)
{
	fprintf(stderr, "kite-fabric[%s]: counters (%s) mode=%s loss=%g delay_us=%llu seed=%llu\n",
		g_name.c_str(), why, opt.mode.c_str(), opt.loss, (unsigned long long)opt.delay_us,
		(unsigned long long)opt.seed);
	for (auto &p : ports) {
		const Counters &c = p.c;
		fprintf(stderr,
			"kite-fabric[%s]: port%d %s rx_frames=%llu rx_bytes=%llu tx_frames=%llu tx_bytes=%llu "
			"os_rx=%llu os_tx=%llu os_dropped=%llu bad_fcs=%llu runts=%llu oversize=%llu loss_dropped=%llu "
			"full_dropped=%llu tx_errors=%llu connects=%llu\n",
			g_name.c_str(), p.index, p.spec.c_str(), (unsigned long long)c.rx_frames,
			(unsigned long long)c.rx_bytes, (unsigned long long)c.tx_frames,
			(unsigned long long)c.tx_bytes, (unsigned long long)c.os_rx, (unsigned long long)c.os_tx,
			(unsigned long long)c.os_dropped, (unsigned long long)c.bad_fcs,
			(unsigned long long)c.runts, (unsigned long long)c.oversize,
			(unsigned long long)c.loss_dropped, (unsigned long long)c.full_dropped,
			(unsigned long long)c.tx_errors, (unsigned long long)c.connects);
	}
	fflush(stderr);
}

void close_conn(Port &p)
{
	if (p.fd >= 0)
		close(p.fd);
	p.fd = -1;
	p.rxbuf.clear();
	p.out.clear();
	p.out_off = p.out_bytes = 0;
}

void flush_out(Port &p)
{
	while (!p.out.empty() && p.fd >= 0) {
		auto &b = p.out.front();
		ssize_t n = send(p.fd, b.data() + p.out_off, b.size() - p.out_off, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			if (errno == EINTR)
				continue;
			p.c.tx_errors++;
			close_conn(p);
			return;
		}
		p.out_off += size_t(n);
		if (p.out_off == b.size()) {
			p.out_bytes -= b.size();
			p.out.pop_front();
			p.out_off = 0;
		}
	}
}

// Sends one frame (already in the egress port's format) out of a port.
void transmit(Port &p, const std::vector<uint8_t> &f)
{
	if (p.kind == Kind::Udp) {
		ssize_t n = sendto(p.fd, f.data(), f.size(), 0, reinterpret_cast<sockaddr *>(&p.remote),
				   sizeof p.remote);
		if (n < 0) {
			// ECONNREFUSED: nobody listens yet (VM not started); ENOBUFS: full
			p.c.tx_errors++;
			return;
		}
	} else {
		if (p.fd < 0) {
			p.c.tx_errors++;
			return;
		}
		if (p.out_bytes + f.size() + 4 > kOutCap) {
			p.c.full_dropped++;
			return;
		}
		std::vector<uint8_t> b(f.size() + 4);
		uint32_t be = htonl(uint32_t(f.size()));
		memcpy(b.data(), &be, 4);
		memcpy(b.data() + 4, f.data(), f.size());
		p.out_bytes += b.size();
		p.out.push_back(std::move(b));
		flush_out(p);
	}
	p.c.tx_frames++;
	p.c.tx_bytes += f.size();
}

void egress(int to, std::vector<uint8_t> frame)
{
	if (opt.delay_us) {
		delayq.push_back({now_ns() + opt.delay_us * 1000, to, std::move(frame)});
		return;
	}
	transmit(ports[size_t(to)], frame);
}

bool is_os(const uint8_t *d, size_t n)
{
	return n < kMinFcsFrame && n >= sizeof kOsMagic - 1 && memcmp(d, kOsMagic, sizeof kOsMagic - 1) == 0;
}

uint64_t mac_at(const uint8_t *d)
{
	uint64_t m = 0;
	for (int i = 0; i < 6; i++)
		m = (m << 8) | d[i];
	return m;
}

// Where the fabric terminates a Kite link (a switch port, or a wire to a port
// without FCS), it is the link partner: always up, and it answers an ordered
// set that asks for an answer (state bit 1), as operation.rst requires.
void answer_os(Port &p, const uint8_t *d, size_t n)
{
	if (n < 8 || !(d[7] & 2))
		return;
	std::vector<uint8_t> f(d, d + 6);
	f.insert(f.end(), {1, 1, 0, 0, 0, 0});
	uint32_t c = crc32(f.data(), f.size());
	for (int i = 0; i < 4; i++)
		f.push_back(uint8_t(c >> (8 * i)));
	p.c.os_tx++;
	egress(p.index, std::move(f));
}

// A frame arrived on port `from` in that port's format.
void ingress(int from, const uint8_t *d, size_t n)
{
	Port &in = ports[size_t(from)];
	in.c.rx_frames++;
	in.c.rx_bytes += n;
	if (n > kMaxFrame) {
		in.c.oversize++;
		return;
	}
	bool os = in.fcs && is_os(d, n);
	if (os)
		in.c.os_rx++;
	// payload without FCS, for non-fcs egress and for MAC lookups
	size_t plen = n;
	if (in.fcs && !os) {
		if (n < 18) {
			in.c.runts++;
			return;
		}
		uint32_t want = crc32(d, n - 4);
		uint32_t got = uint32_t(d[n - 4]) | uint32_t(d[n - 3]) << 8 | uint32_t(d[n - 2]) << 16 |
			       uint32_t(d[n - 1]) << 24;
		if (want != got) {
			in.c.bad_fcs++;
			return;
		}
		plen = n - 4;
	} else if (!in.fcs && n < 14) {
		in.c.runts++;
		return;
	}

	std::vector<int> outs;
	if (opt.mode == "wire") {
		if (os && !ports[size_t(1 - from)].fcs) {
			// the far side cannot carry ordered sets: this end terminates the link
			in.c.os_dropped++;
			answer_os(in, d, n);
			return;
		}
		outs.push_back(1 - from);
	} else {
		if (os) {  // a switch terminates the link: ordered sets stay on it
			in.c.os_dropped++;
			answer_os(in, d, n);
			return;
		}
		uint64_t now = now_ns();
		uint64_t src = mac_at(d + 6), dst = mac_at(d);
		if (!(d[6] & 1))
			fdb[src] = {from, now};
		auto it = fdb.find(dst);
		if (!(d[0] & 1) && it != fdb.end() && now - it->second.second < 300'000'000'000ull) {
			if (it->second.first == from)
				return;  // already on its segment
			outs.push_back(it->second.first);
		} else {
			for (auto &p : ports)
				if (p.index != from)
					outs.push_back(p.index);
		}
	}

	for (int to : outs) {
		Port &out = ports[size_t(to)];
		if (os && !out.fcs) {
			in.c.os_dropped++;
			continue;
		}
		if (!os && opt.loss > 0 && rng.uniform() * 100.0 < opt.loss) {
			out.c.loss_dropped++;
			continue;
		}
		std::vector<uint8_t> f;
		if (os || in.fcs == out.fcs) {
			f.assign(d, d + n);
		} else if (in.fcs) {
			f.assign(d, d + plen);
		} else {
			f.assign(d, d + n);
			if (f.size() < 60)
				f.resize(60, 0);
			uint32_t c = crc32(f.data(), f.size());
			for (int i = 0; i < 4; i++)
				f.push_back(uint8_t(c >> (8 * i)));
		}
		egress(to, std::move(f));
	}
}

void read_udp(Port &p)
{
	static uint8_t buf[kMaxFrame + 1];
	for (int i = 0; i < 256; i++) {
		ssize_t n = recv(p.fd, buf, sizeof buf, MSG_TRUNC);
		if (n < 0)
			return;
		ingress(p.index, buf, size_t(n) > sizeof buf ? sizeof buf : size_t(n));
	}
}

void read_unix(Port &p)
{
	uint8_t buf[65536];
	for (int i = 0; i < 64; i++) {
		ssize_t n = recv(p.fd, buf, sizeof buf, 0);
		if (n == 0) {
			close_conn(p);
			return;
		}
		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				close_conn(p);
			return;
		}
		p.rxbuf.insert(p.rxbuf.end(), buf, buf + n);
		size_t off = 0;
		while (p.rxbuf.size() - off >= 4) {
			uint32_t be;
			memcpy(&be, p.rxbuf.data() + off, 4);
			size_t len = ntohl(be);
			if (len > kMaxFrame) {
				p.c.oversize++;
				close_conn(p);  // framing lost: drop the connection
				return;
			}
			if (p.rxbuf.size() - off - 4 < len)
				break;
			ingress(p.index, p.rxbuf.data() + off + 4, len);
			off += 4 + len;
		}
		p.rxbuf.erase(p.rxbuf.begin(), p.rxbuf.begin() + long(off));
	}
}

void usage()
{
	fprintf(stderr,
		"usage: kite-fabric [--name N] [--mode wire|switch] --port SPEC [--port SPEC...]\n"
		"                   [--loss PCT] [--delay-us N] [--seed N] [--sockbuf BYTES]\n"
		"  SPEC: udp:LHOST:LPORT:RHOST:RPORT[,fcs]   (QEMU -netdev dgram)\n"
		"        unix:PATH[,fcs]                      (QEMU -netdev stream, we listen)\n"
		"  not implemented yet (refused): --ecn-threshold --pfc --rate\n");
}

}  // namespace

int main(int argc, char **argv)
{
	// die with the process that started us (kitevm.py, a test)
	pid_t parent = getppid();
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		return 0;
	crc_init();

	std::vector<std::string> specs;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		auto val = [&]() -> std::string {
			if (i + 1 >= argc)
				die("%s needs a value", a);
			return argv[++i];
		};
		auto num = [&](const std::string &v, double lo, double hi) {
			char *end = nullptr;
			double d = strtod(v.c_str(), &end);
			if (v.empty() || *end || !(d >= lo && d <= hi))
				die("bad value '%s' for %s", v, a);
			return d;
		};
		if (a == "--name") {
			g_name = val();
		} else if (a == "--mode") {
			opt.mode = val();
			if (opt.mode != "wire" && opt.mode != "switch")
				die("--mode must be wire or switch, not '%s'", opt.mode);
		} else if (a == "--port") {
			specs.push_back(val());
		} else if (a == "--loss") {
			opt.loss = num(val(), 0, 100);
		} else if (a == "--delay-us") {
			opt.delay_us = uint64_t(num(val(), 0, 10e6));
		} else if (a == "--seed") {
			opt.seed = uint64_t(num(val(), 0, 1e18));
		} else if (a == "--sockbuf") {
			opt.sockbuf = int(num(val(), 4096, 1 << 30));
		} else if (a == "--ecn-threshold" || a == "--pfc" || a == "--rate") {
			die("%s is not implemented yet", a);
		} else if (a == "-h" || a == "--help") {
			usage();
			return 0;
		} else {
			usage();
			die("unknown argument '%s'", a);
		}
	}
	if (specs.empty())
		die("no --port given");
	if (opt.mode == "wire" && specs.size() != 2)
		die("wire mode needs exactly 2 ports%s", "");
	rng.s = opt.seed;

	sigset_t mask;
	sigemptyset(&mask);
	for (int s : {SIGTERM, SIGINT, SIGHUP, SIGUSR1})
		sigaddset(&mask, s);
	sigprocmask(SIG_BLOCK, &mask, nullptr);
	int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		die("signalfd: %s", strerror(errno));
	signal(SIGPIPE, SIG_IGN);

	for (size_t i = 0; i < specs.size(); i++)
		ports.push_back(parse_port(specs[i], int(i)));
	printf("kite-fabric: ready\n");
	fflush(stdout);

	std::vector<pollfd> pfds;
	std::vector<std::pair<int, int>> who;  // (port index, 0=data 1=listen); -1 = signalfd
	for (;;) {
		pfds.clear();
		who.clear();
		pfds.push_back({sfd, POLLIN, 0});
		who.push_back({-1, 0});
		for (auto &p : ports) {
			if (p.fd >= 0) {
				short ev = POLLIN;
				if (!p.out.empty())
					ev |= POLLOUT;
				pfds.push_back({p.fd, ev, 0});
				who.push_back({p.index, 0});
			}
			if (p.listen_fd >= 0) {
				pfds.push_back({p.listen_fd, POLLIN, 0});
				who.push_back({p.index, 1});
			}
		}
		int timeout = -1;
		if (!delayq.empty()) {
			uint64_t now = now_ns(), due = delayq.front().due;
			timeout = due <= now ? 0 : int((due - now + 999999) / 1000000);
		}
		int r = poll(pfds.data(), pfds.size(), timeout);
		if (r < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
		uint64_t now = now_ns();
		while (!delayq.empty() && delayq.front().due <= now) {
			Delayed d = std::move(delayq.front());
			delayq.pop_front();
			transmit(ports[size_t(d.port)], d.frame);
		}
		if (r <= 0)
			continue;
		for (size_t i = 0; i < pfds.size(); i++) {
			if (!pfds[i].revents)
				continue;
			auto [idx, what] = who[i];
			if (idx < 0) {
				signalfd_siginfo si;
				while (read(sfd, &si, sizeof si) == sizeof si) {
					if (si.ssi_signo == SIGUSR1) {
						print_counters("SIGUSR1");
					} else {
						print_counters(strsignal(int(si.ssi_signo)));
						for (auto &p : ports)
							if (!p.path.empty())
								unlink(p.path.c_str());
						return 0;
					}
				}
				continue;
			}
			Port &p = ports[size_t(idx)];
			if (what == 1) {
				int c = accept4(p.listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
				if (c >= 0) {
					close_conn(p);  // a new client replaces the old one (VM restart)
					p.fd = c;
					size_buffers(c);
					p.c.connects++;
				}
				continue;
			}
			if (p.fd != pfds[i].fd)
				continue;  // replaced in this round
			if (pfds[i].revents & POLLOUT)
				flush_out(p);
			if (p.fd >= 0 && (pfds[i].revents & (POLLIN | POLLHUP | POLLERR))) {
				if (p.kind == Kind::Udp)
					read_udp(p);
				else
					read_unix(p);
			}
		}
	}
}
