package scache

import (
	"fmt"

	"github.com/jdwpscache/scache/jdwp"
)

// Hot swap. A VirtualMachine.RedefineClasses command makes the metadata of
// the classes it redefines stale: line tables, variable tables, methods,
// obsolete flags. Everything cached or in flight about them goes at once.
// What of it the debugger used, it asks again at its next stop in those
// classes, one reply behind the frames that name them; so it is asked again
// as soon as the VM has answered the command (and so has processed it),
// while the debugger is still to resume.

// maxReasked bounds the commands asked again after one hot swap.
const maxReasked = 256

// onRedefine evicts what a VirtualMachine.RedefineClasses command with id
// makes stale, every redefined class's metadata, cached or in flight, and
// keeps what of it the debugger used, to ask again at the reply.
func (s *Speculator) onRedefine(id uint32, packet []byte) error {
	var m jdwp.VMRedefineClassesCommand
	if err := jdwp.Unmarshal(jdwp.Data(packet), s.sizes, &m); err != nil {
		return fmt.Errorf("RedefineClasses command: %w", err)
	}
	ids := make([]jdwp.ReferenceTypeID, len(m.Classes))
	var again []queued
	for i, c := range m.Classes {
		ids[i] = c.RefType
		if s.cfg.classic {
			continue
		}
		for _, key := range s.cache.usedKeys(c.RefType) {
			if len(again) == maxReasked {
				break
			}
			again = append(again, queued{key: key, subject: subject{life: lifetimeClass, class: c.RefType}})
		}
	}
	s.invalidate(ids)
	if len(again) > 0 && len(s.redefined) < s.cfg.maxOrganicIDs {
		if s.redefined == nil {
			s.redefined = make(map[uint32][]queued)
		}
		s.redefined[id] = again
	}
	return nil
}

// onRedefined queues again, when id is a RedefineClasses command's whose
// reply has arrived, the metadata the debugger used of the classes it
// redefined. It reports whether it queued anything.
func (s *Speculator) onRedefined(id uint32) bool {
	again, ok := s.redefined[id]
	if !ok {
		return false
	}
	delete(s.redefined, id)
	for _, q := range again {
		s.enqueueKey(q.key, q.msg, q.subject, false)
	}
	return true
}
