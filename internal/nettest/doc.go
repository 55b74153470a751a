// Package nettest holds what the tests need of the network beyond the
// standard library: an address that refuses every connection.
package nettest
