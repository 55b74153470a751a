package scache

import "github.com/jdwpscache/scache/jdwp"

// Each field of an object alone (FamilyValues). jdb dumps an object with
// an ObjectReference.GetValues of each field alone, then one of no field:
// once the reply to the first arrives, the others go out (askEachField).
// A JDI client reads one field alone too (ObjectReference.getValue: an
// IDE's renderer reading a collection's size, a watch on obj.field) and
// asks none of the others: there each such read would cost up to
// maxEachField commands of the VM's time, at every stop. So the
// Speculator follows whether the debugger went on with another field of
// the object alone (or the one of no field) in the same epoch. Once it did
// not, the fields go out again only at every probeEvery-th read of one
// field alone, and at once again after the debugger went on with another.

// eachFieldUse is what the debugger did after its last read of one field
// of an object alone.
type eachFieldUse struct {
	object jdwp.ObjectID // the object of the last read of one field alone (0: none yet)
	first  jdwp.FieldID  // the field it read
	epoch  uint64        // the suspension epoch it read it in
	// sent: the other fields went out behind it; followed: the debugger
	// read another field of the object alone, or the one of no field.
	sent, followed bool
	// unfollowed counts the reads in a row whose fields went out and the
	// debugger did not follow; reads counts the reads of one field alone.
	unfollowed, reads int
}

// noteFieldAsked is FamilyValues' onAsked: it follows the debugger's reads
// of an object's fields one at a time.
func noteFieldAsked(s *Speculator, key Key, m jdwp.CommandMessage) {
	if key.Command() != jdwp.CmdObjectReferenceGetValues {
		return
	}
	if m == nil {
		var err error
		if m, err = key.Message(s.sizes); err != nil {
			return
		}
	}
	asked, ok := m.(*jdwp.ObjectRefGetValuesCommand)
	if !ok || len(asked.Fields) > 1 {
		return
	}
	u := &s.eachField
	same := u.object == asked.Object && u.epoch == s.susp.epoch
	switch {
	case same && (len(asked.Fields) == 0 || asked.Fields[0] != u.first):
		u.followed, u.unfollowed = true, 0
	case !same && len(asked.Fields) == 1:
		if u.sent && !u.followed {
			u.unfollowed++
		}
		*u = eachFieldUse{object: asked.Object, first: asked.Fields[0], epoch: s.susp.epoch,
			unfollowed: u.unfollowed, reads: u.reads + 1}
	}
}

// eachFieldWanted reports whether the other fields of obj go out at the
// reply to the debugger's read of one of its fields alone, and notes that
// they did.
func eachFieldWanted(s *Speculator, obj jdwp.ObjectID) bool {
	u := &s.eachField
	if u.object != obj || u.epoch != s.susp.epoch || u.sent {
		return false
	}
	u.sent = u.unfollowed < pauseAfter || u.reads%probeEvery == 0
	return u.sent
}

// resetEachField forgets what the debugger did (onReset).
func resetEachField(s *Speculator) { s.eachField = eachFieldUse{} }
