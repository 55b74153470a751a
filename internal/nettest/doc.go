// Package nettest holds what the tests need of the network beyond the
// standard library: an address that refuses every connection, and a
// Cutter, a link that a test resets or black-holes.
package nettest
