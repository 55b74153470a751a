package scache

import "github.com/jdwpscache/scache/jdwp"

// classTracker maps class signatures to the ids of the loaded classes that
// have them. A ClassUnload event names only a signature, and class loaders load
// the same signature many times, so unloading a signature means every id it
// maps to. It learns from ClassPrepare events and from the replies to
// AllClasses and to the debugger's ClassesBySignature, and
// forgets on unload, so it holds at most the VM's loaded classes.
type classTracker struct {
	bySig map[string][]jdwp.ReferenceTypeID
	sigOf map[jdwp.ReferenceTypeID]string
	// asked holds, by packet id, the signature of a debugger's
	// ClassesBySignature whose reply is to come: its classes are learned
	// too.
	asked map[uint32]string
}

// maxClassesAsked bounds classTracker.asked.
const maxClassesAsked = 64

func newClassTracker() classTracker {
	return classTracker{bySig: make(map[string][]jdwp.ReferenceTypeID), sigOf: make(map[jdwp.ReferenceTypeID]string),
		asked: make(map[uint32]string)}
}

// ask notes the debugger's ClassesBySignature of sig, sent with id, and
// reports whether its reply is to be learned from.
func (t *classTracker) ask(id uint32, sig string) bool {
	if len(t.asked) >= maxClassesAsked {
		return false
	}
	t.asked[id] = sig
	return true
}

// answered learns the classes of the reply to the ClassesBySignature sent
// with id, if it was noted.
func (t *classTracker) answered(id uint32, classes []jdwp.TypeStatus) {
	sig, ok := t.asked[id]
	if !ok {
		return
	}
	delete(t.asked, id)
	for _, c := range classes {
		t.add(sig, c.TypeID)
	}
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
