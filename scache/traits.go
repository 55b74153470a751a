package scache

import "github.com/jdwpscache/scache/jdwp"

// traits is what the Speculator needs to know of a command, gathered once
// from the tables that state it (keyable, letRun, epochEnders,
// valueChangers), so that a packet costs one lookup.
type traits struct {
	spec          keySpec
	keyable       bool
	letRun        bool // see letRun
	endsEpoch     bool // lets threads run, or see epochEnders
	changesValues bool // see valueChangers
}

// commandTraits holds the traits of every command any table names.
var commandTraits = buildTraits()

func buildTraits() map[jdwp.Command]traits {
	t := map[jdwp.Command]traits{}
	for cmd, spec := range keyable {
		tr := t[cmd]
		tr.spec, tr.keyable = spec, true
		t[cmd] = tr
	}
	for cmd := range letRun {
		tr := t[cmd]
		tr.letRun, tr.endsEpoch = true, true
		t[cmd] = tr
	}
	for cmd := range epochEnders {
		tr := t[cmd]
		tr.endsEpoch = true
		t[cmd] = tr
	}
	for cmd := range valueChangers {
		tr := t[cmd]
		tr.changesValues = true
		t[cmd] = tr
	}
	return t
}
