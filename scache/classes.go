package scache

import "github.com/jdwpscache/scache/jdwp"

// classTracker maps class signatures to the ids of the loaded classes that
// have them. A ClassUnload event names only a signature, and class loaders load
// the same signature many times, so unloading a signature means every id it
// maps to. It learns from ClassPrepare events and AllClasses replies and
// forgets on unload, so it holds at most the VM's loaded classes.
type classTracker struct {
	bySig map[string][]jdwp.ReferenceTypeID
	sigOf map[jdwp.ReferenceTypeID]string
}

func newClassTracker() classTracker {
	return classTracker{bySig: make(map[string][]jdwp.ReferenceTypeID), sigOf: make(map[jdwp.ReferenceTypeID]string)}
}

// add records that class id has signature sig.
func (t *classTracker) add(sig string, id jdwp.ReferenceTypeID) {
	if _, ok := t.sigOf[id]; ok {
		return
	}
	t.sigOf[id] = sig
	t.bySig[sig] = append(t.bySig[sig], id)
}

// known reports whether the signature of class id is known.
func (t *classTracker) known(id jdwp.ReferenceTypeID) bool {
	_, ok := t.sigOf[id]
	return ok
}

// unload forgets every class of a signature and returns their ids.
func (t *classTracker) unload(sig string) []jdwp.ReferenceTypeID {
	ids := t.bySig[sig]
	delete(t.bySig, sig)
	for _, id := range ids {
		delete(t.sigOf, id)
	}
	return ids
}

func (t *classTracker) reset() { *t = newClassTracker() }
