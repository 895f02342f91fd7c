# Courier developer entry points. Every target installs what it needs.
SHELL := /bin/bash
SWIFT ?= swift
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := FuzzResponseParser FuzzChunkedDecoder FuzzContentDecoder FuzzRequestRoundTrip FuzzResponseSerializers FuzzURL FuzzConnection FuzzEventStream FuzzSOCKSReply
# The cookie jar's Set-Cookie parser and curl cookie-file reader.
FUZZ_TARGETS += FuzzCookies

.PHONY: all build release install demo test deps linkage test-only test-cli-release test-tsan test-asan fuzz fuzz-build fuzz-smoke fuzz-regress bench-parser bench-client clean

all: build

# System libraries the C module maps need (OpenSSL, zlib), pkg-config to find them, iproute2
# (`ip`) for the path monitor's network-namespace test, the openssl CLI (the OCSP responder the
# revocation tests run) and nginx for the OCSP stapling test against a real server (skipped where
# it is missing), curl (the cURL-description round trip runs the command it prints), and from
# PyPI httpbin served by gunicorn (Digest authentication against a real server), and the Public
# Suffix List the cookie jar reads (publicsuffix: /usr/share/publicsuffix/public_suffix_list.dat).
deps:
	@missing=""; \
	for p in libssl-dev zlib1g-dev pkg-config iproute2 openssl nginx curl python3-pip publicsuffix; do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; \
	done; \
	if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi; \
	if ! command -v gunicorn >/dev/null 2>&1 || ! python3 -c 'import httpbin' >/dev/null 2>&1; then \
	  echo "installing from PyPI: httpbin gunicorn"; \
	  python3 -m pip install -q httpbin gunicorn 2>/dev/null \
	    || $$SUDO python3 -m pip install -q --break-system-packages httpbin gunicorn; \
	fi
	@# dante-server: danted, the real SOCKS5 proxy of the SOCKS tests. Its username method checks
	@# system users, so as root (CI) a system user with a known password, no home and no login
	@# shell is made for those tests (DanteServer.testUser); elsewhere they are skipped.
	@if ! dpkg -s dante-server >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi; \
	  echo "installing: dante-server"; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq dante-server; \
	fi
	@if [ "$$(id -u)" = 0 ] && ! id courier-socks >/dev/null 2>&1; then \
	  echo "creating the system user courier-socks (SOCKS5 username tests against danted)"; \
	  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin courier-socks \
	    && echo 'courier-socks:courier-socks-test' | chpasswd; \
	fi
	@# hdrhistogram (PyPI): HdrHistogram's Python package, which merges the interval logs of two
	@# `courier bench --hdr-log` runs in CourierCLITests (issue 13).
	@if ! python3 -c 'import hdrh.log' >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi; \
	  echo "installing from PyPI: hdrhistogram"; \
	  python3 -m pip install -q hdrhistogram 2>/dev/null \
	    || $$SUDO python3 -m pip install -q --break-system-packages hdrhistogram; \
	fi

build: deps
	$(SWIFT) build

# The `courier` command (curl's flags, and `courier bench`): a release build, copied to
# $(PREFIX)/bin (default /usr/local/bin). The Swift runtime and Foundation are linked in
# (--static-swift-stdlib), and libstdc++ too (Package.swift, courierReleaseLink): the binary
# needs only glibc 2.36+, libgcc_s, libssl and zlib on the target machine, and starts in about
# 6 ms rather than 10 (no dozen runtime libraries to load and relocate).
#
# Two code generation flags take a tenth off the instructions `courier bench` runs per request
# (Benchmarks/RESULTS.md, "the fifth pass"):
# - -disable-type-layout: with type-layout lowering, a copy or destroy of an Optional of a struct
#   with many fields (a request head, an action, a header view) is a call through the Optional's
#   type metadata to its value witness, after a metadata lookup; without it, the code that copies
#   the fields inline, as for every other type;
# - -disable-llvm-merge-functions-pass: the pass merges such near-identical helpers into one that
#   takes the type metadata as a parameter, the same indirect calls again.
# And the release build is linked with full LTO (`--experimental-lto-mode=full`): the modules are
# compiled to LLVM bitcode and optimized again as one program at the link, so the calls between
# them (a ByteBuffer method from the parser, a parser step from the connection) are inlined like
# calls inside one module. 12% fewer instructions per request than per-module optimization
# (Benchmarks/RESULTS.md, "the seventh pass"); Swift's own cross-module optimization
# (-cross-module-optimization) did less (1%) and, on top of LTO, undid part of it.
# The release build has its own scratch path: SwiftPM does not rebuild when only -Xswiftc flags
# change, so a build without them in .build would leave objects a tuned link would reuse.
# It also missed, once, that CourierCLI had to be compiled again after a public struct of
# CourierClient changed its stored properties (HTTPClientMetrics): the link mixed the two
# layouts and `courier bench` crashed. After such a change, touch a file of CourierCLI (or
# remove $(COURIER_RELEASE_PATH)); CI builds from a clean clone.
# `make test-cli-release` runs the command line's tests against this build.
PREFIX ?= /usr/local
COURIER_CODEGEN := -Xswiftc -Xfrontend -Xswiftc -disable-type-layout -Xswiftc -Xfrontend -Xswiftc -disable-llvm-merge-functions-pass
COURIER_RELEASE_PATH := .build-release
COURIER_RELEASE := -c release --product courier --static-swift-stdlib --scratch-path $(COURIER_RELEASE_PATH) $(COURIER_CODEGEN) --experimental-lto-mode=full
release: deps
	$(SWIFT) build $(COURIER_RELEASE)

install: release
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 755 "$(COURIER_RELEASE_PATH)/release/courier" "$(DESTDIR)$(PREFIX)/bin/courier"

# The Courier layer's main jobs against loopback servers the demo starts itself: a JSON GET
# decoded into a Decodable, gzip downloads with a progress bar, a multipart upload, a cancelled
# request, HTTPS with a right and a wrong SPKI pin, then the command line: `courier -v` and a
# 5-second `courier bench`.
demo: deps
	$(SWIFT) build --product CourierDemo
	$(SWIFT) build --product courier
	"$$($(SWIFT) build --show-bin-path)/CourierDemo"

# The whole suite: the layering check, every Swift Testing test, every test again under
# AddressSanitizer, then the concurrent suites again under ThreadSanitizer.
test: deps linkage test-only test-cli-release test-asan test-tsan

# Socket tests count /proc/self/fd, which is process-wide: they run one at a time, after the
# pure tests (which run in parallel).
SOCKET_TESTS := ^(CourierPosixTests|CourierTestSupportTests|CourierClientTests|CourierTests|CourierCLITests)\.

test-only:
	$(SWIFT) test --disable-xctest --skip '$(SOCKET_TESTS)'
	$(SWIFT) test --disable-xctest --no-parallel --filter '$(SOCKET_TESTS)'

# The command line's end-to-end tests again, run against the release `courier` (built with
# COURIER_CODEGEN's flags, which the debug build the other tests use does not have).
test-cli-release: release
	COURIER_EXECUTABLE="$(CURDIR)/$(COURIER_RELEASE_PATH)/release/courier" $(SWIFT) test --disable-xctest --no-parallel --filter '^CourierCLITests\.'

# The event loop, the pool and the client's concurrent paths under ThreadSanitizer, in their
# own build directory (a sanitized build cannot share .build with the normal one).
# -DCOURIER_TSAN swaps Synchronization.Mutex for a pthread lock TSan can see (CourierCore/PthreadMutex.swift):
# TSan does not understand the futex-based Mutex and would report every locked access.
# -DCOURIER_SANITIZED (both sanitizers) leaves out the assertions on resident memory: shadow
# memory and AddressSanitizer's quarantine of freed blocks grow on their own.
TSAN_FILTER := TSanMutexTests|CourierPosixTests|RedirectHandlerTests|PoolLimitTests|KeepAliveTests|CancellationTests|StaleRetryTests|BackpressureTests|TimeoutTests|FailureModeTests|DataTaskTests|SuspendTests|ManyTasksTests|TaskControlTests|SessionHookTests|ResumeDownloadTests|ProgressReportingTests|HTTPAsyncTests|SessionEventTests|RedirectAndAuthHookTests|AsyncCompletionRouteTests|AsyncTaskCallsTests|BytesForRequestTests|EventSourceTests|AuthenticationInterceptorTests|DigestAuthTests|InterceptorTests|EventMonitorOrderTests|MonitorKindsTests|HARRecorderTests
# The SOCKS5 tunnel's setup path (the socks5 lookup's hop back to the loop, the handshake timer).
TSAN_FILTER := $(TSAN_FILTER)|SOCKSIntegrationTests
# An ended execution reused from another thread than the loop that ended it.
TSAN_FILTER := $(TSAN_FILTER)|ExecutionReuseTests
# The cookie jar's lock and the session's cookie glue.
TSAN_FILTER := $(TSAN_FILTER)|CookieJarTests|CookieSessionTests
# The TLS session cache: sessions stored from the loop, offered to new connections on any loop.
# (Not TLSResumptionTests: its nginx child's pipe, made while parallel suites count descriptors,
# is reported as their leak.)
TSAN_FILTER := $(TSAN_FILTER)|TLSSessionCacheTests
# The response cache's lock, shared by tasks completing on the completion queue and new lookups.
TSAN_FILTER := $(TSAN_FILTER)|HTTPCacheTests|CacheStoreTests
# Reports go to files that are printed, whole, after a failing run: a CI log that keeps only its
# end still shows both stacks of a race.
TSAN_REPORTS := $(CURDIR)/.build-tsan/tsan-report
test-tsan: deps
	rm -f $(TSAN_REPORTS).*
	TSAN_OPTIONS=log_path=$(TSAN_REPORTS) $(SWIFT) test --disable-xctest --sanitize=thread -Xswiftc -DCOURIER_TSAN -Xswiftc -DCOURIER_SANITIZED --scratch-path .build-tsan --filter '$(TSAN_FILTER)' \
		|| { cat $(TSAN_REPORTS).* 2>/dev/null; exit 1; }

# Every test under AddressSanitizer (and LeakSanitizer, which it runs at exit), in its own build
# directory, split like test-only (socket tests count descriptors process-wide).
# Tests/lsan-suppressions.txt says which allocations LeakSanitizer cannot judge (globals' own
# initialisers) and why.
ASAN_FLAGS := --disable-xctest --sanitize=address -Xswiftc -DCOURIER_SANITIZED --scratch-path .build-asan
ASAN_ENV := LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan-suppressions.txt:print_suppressions=0
test-asan: deps
	$(ASAN_ENV) $(SWIFT) test $(ASAN_FLAGS) --skip '$(SOCKET_TESTS)'
	$(ASAN_ENV) $(SWIFT) test $(ASAN_FLAGS) --no-parallel --filter '$(SOCKET_TESTS)'

# The module graph (docs/ARCHITECTURE.md, "Modules that exist"): every import is declared in
# Package.swift and none is forbidden by the table there (which also keeps Foundation out of the
# lower layers and FoundationEssentials the only Foundation of Courier); then the dynamic
# dependencies of a small binary that links the lower modules, and of the demo.
linkage: deps
	python3 scripts/check-imports.py
	$(SWIFT) build --product CourierLinkageProbe
	@bin="$$($(SWIFT) build --show-bin-path)/CourierLinkageProbe"; \
	"$$bin" >/dev/null || { echo "linkage: probe failed to run"; exit 1; }; \
	if ldd "$$bin" | grep -i foundation; then echo "linkage: Foundation is linked into a library module"; exit 1; fi; \
	echo "linkage: CourierCore, CourierHTTP1, CourierPosix, CourierTLS and CourierClient link without Foundation ($$(ldd "$$bin" | grep -c swift) Swift runtime libraries)"
	$(SWIFT) build --product CourierDemo
	@bin="$$($(SWIFT) build --show-bin-path)/CourierDemo"; \
	if ldd "$$bin" | grep -E 'libFoundation(Networking|XML)?\.so'; then echo "linkage: Courier links more than FoundationEssentials"; exit 1; fi; \
	echo "linkage: Courier links FoundationEssentials only"

# Soak under faults (docs/RELIABILITY.md): SOAK_REQUESTS GETs through HTTPClient and
# SOAK_SESSION_REQUESTS through SessionManager at c=64 against nginx, a faulty upstream and a
# fault-injecting relay on loopback (Soak/run.sh installs nginx and stops everything it starts).
# SOAK_CONFIG=debug reuses the debug build (CI's short run).
SOAK_REQUESTS ?= 1000000
SOAK_SESSION_REQUESTS ?= 200000
SOAK_CONFIG ?= release
.PHONY: soak
soak: deps
	$(SWIFT) build -c $(SOAK_CONFIG) --product CourierSoak
	SOAK_REQUESTS=$(SOAK_REQUESTS) SOAK_SESSION_REQUESTS=$(SOAK_SESSION_REQUESTS) \
	  ./Soak/run.sh "$$($(SWIFT) build -c $(SOAK_CONFIG) --show-bin-path)/CourierSoak"

# libFuzzer targets (see Fuzz/README.md). FUZZ_SECONDS per target.
# The HTTP cache: Cache-Control values and the disk cache's entry files.
FUZZ_TARGETS += FuzzCacheControl FuzzDiskCacheEntry

fuzz-build: deps
	cd Fuzz && $(SWIFT) build -c release --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address

fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do ./Fuzz/run.sh $$t $(FUZZ_SECONDS) || exit 1; done

fuzz-smoke:
	$(MAKE) fuzz FUZZ_SECONDS=5

# Replays every saved crash and the seed corpus through each target (no fuzzing).
fuzz-regress: fuzz-build
	@for t in $(FUZZ_TARGETS); do ./Fuzz/run.sh $$t regress || exit 1; done

# Courier's parser against llhttp (swift-nio's vendored copy), same corpus, same run.
bench-parser: deps
	cd Benchmarks && $(SWIFT) package --allow-writing-to-package-directory benchmark --target ParserBenchmarks --format markdown --no-progress

# Courier against async-http-client, URLSession, curl and wrk over loopback to nginx
# (Benchmarks/Client/README.md). Installs nginx and wrk, makes the data files once, builds the
# drivers in release mode (a driver whose product is not declared yet is reported, not built),
# then runs every workload REPS times. Counts and clients: see the README (REPS=, CLIENTS=, ...).
BENCH_CLIENT_DRIVERS := CourierBench CourierSessionBench AHCBench URLSessionBench ZlibInflateBench RusageSpawn
# The Swift drivers are linked with --static-swift-stdlib, as a Swift server binary is usually
# deployed (smaller resident set: only the runtime pages a program touches) — all but
# URLSessionBench: FoundationNetworking's static archive needs libcurl's static library.
bench-client: deps
	./Benchmarks/Client/setup.sh >/dev/null
	@cd Benchmarks && for p in $(BENCH_CLIENT_DRIVERS); do \
	  if grep -q "name: \"$$p\"" Package.swift; then \
	    static=$$([ $$p = URLSessionBench ] || echo --static-swift-stdlib); \
	    $(SWIFT) build -c release $$static --product $$p || exit 1; \
	  else echo "bench-client: $$p is not declared in Benchmarks/Package.swift: not built"; fi; \
	done
	python3 Benchmarks/Client/run.py

clean:
	rm -rf .build .build-release .build-tsan .build-asan Fuzz/.build Benchmarks/.build
