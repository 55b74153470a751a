// Package benchmarks holds the Go benchmarks of scache over real traffic:
// `go test -bench . ./benchmarks` feeds the embedded JDI session through the
// Speculator in each mode and reports ns and allocations per packet, beside
// a baseline that only frames and copies the packets. The replay harness,
// which estimates what speculation saves a debugger, is ./replay.
package benchmarks
