package scache

import (
	"fmt"

	"github.com/jdwpscache/scache/jdwp"
)

// What the Speculator learns of the session from replies and events: the id
// sizes, the loaded classes, a class prepared or unloaded, the VM's death,
// the stops; and, for each successful reply, the families it triggers.

// onReply reacts to a successful reply: to one of the debugger's commands,
// or (except in Classic) to a synthetic one. It learns the protocol facts
// (id sizes, classes), then runs the families' triggers (families.go).
func (s *Speculator) onReply(r *Response, p *inFlight, data []byte) error {
	reply := &replyData{cmd: p.cmd, data: data}
	switch p.cmd {
	case jdwp.CmdVirtualMachineIDSizes:
		var m jdwp.VMIDSizesReply
		if err := jdwp.Unmarshal(data, s.sizes, &m); err != nil {
			return err
		}
		if err := m.Sizes.Validate(); err != nil {
			return err
		}
		if m.Sizes != s.sizes {
			// Keys and cached replies were made with the old sizes.
			s.clearAll()
			s.sizes = m.Sizes
		}
	case jdwp.CmdVirtualMachineAllClasses:
		var m jdwp.VMAllClassesReply
		if err := jdwp.Unmarshal(data, s.sizes, &m); err != nil {
			return err
		}
		s.learnClasses(m.Classes)
	case jdwp.CmdVirtualMachineAllClassesWithGeneric:
		var m jdwp.VMAllClassesWithGenericReply
		if err := jdwp.Unmarshal(data, s.sizes, &m); err != nil {
			return err
		}
		s.learnClasses(m.Classes)
	case jdwp.CmdVirtualMachineClassesBySignature:
		var m jdwp.VMClassesBySignatureReply
		if err := jdwp.Unmarshal(data, s.sizes, &m); err != nil {
			return err
		}
		s.classes.answered(p.id, m.Classes)
	case jdwp.CmdThreadReferenceFrames:
		// The frames of a reply true in this epoch: where each stands.
		// A parked thread's stay true beyond it (parked.go).
		if t, ok := p.key.thread(s.sizes); ok && (s.susp.current(p) || s.susp.parkedReply(p)) {
			m, err := reply.typed(s)
			if err != nil {
				return err
			}
			if cmd, err := p.key.Message(s.sizes); err == nil {
				if asked, ok := cmd.(*jdwp.ThreadFramesCommand); ok {
					s.stop.framesShown(t, int(asked.StartFrame), m.(*jdwp.ThreadFramesReply).Frames)
				}
			}
		}
	case jdwp.CmdVirtualMachineVersion:
		// OpenJDK's agent numbers each session's requests from 2
		// (request_ids.go). A reply this cannot read teaches nothing.
		var m jdwp.VMVersionReply
		if jdwp.Unmarshal(data, s.sizes, &m) == nil && referenceAgent(m.Description) {
			s.requests.sessionStart()
		}
	case jdwp.CmdVirtualMachineAllThreads:
		// Asked at a stop or while threads run, the list is the next stop's
		// best guess of its threads (FamilyThreads).
		var m jdwp.ObjectIDsReply
		if err := jdwp.Unmarshal(data, s.sizes, &m); err != nil {
			return err
		}
		s.stop.setThreads(m.IDs)
	}
	return s.table.reply(s, p, reply)
}

func (s *Speculator) learnClasses(classes []jdwp.ClassInfo) {
	for _, c := range classes {
		s.classes.add(c.Signature, c.TypeID)
	}
}

// onEvents reacts to the events of a composite: class tracking, the VM's
// start and death, the stops.
func (s *Speculator) onEvents(packet []byte) error {
	var c jdwp.Composite
	if err := jdwp.Unmarshal(jdwp.Data(packet), s.sizes, &c); err != nil {
		return fmt.Errorf("event composite: %w", err)
	}
	started := false
	for _, e := range c.Events {
		switch e := e.(type) {
		case *jdwp.ThreadEvent:
			started = started || e.EventKind == jdwp.EventVMStart
		case *jdwp.ClassPrepareEvent:
			s.classes.add(e.Signature, e.TypeID)
			if c.SuspendPolicy != jdwp.SuspendPolicyNone {
				s.table.prepare(s, e.TypeID)
			}
		case *jdwp.ClassUnloadEvent:
			s.unloadSignature(e.Signature)
		case *jdwp.VMDeathEvent:
			s.clearAll()
			endSession(s)
		}
	}
	takenUp := s.stop.takenUpNow()
	if stop, stopped := s.onStopEvents(&c); stopped {
		s.table.stop(s, stop)
		queueBehind(s, takenUp, stop.thread) // takeup.go
	} else if s.susp.kind == allSuspended {
		s.table.quiet(s, started)
	}
	return nil
}
