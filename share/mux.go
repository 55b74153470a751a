package share

import (
	"github.com/jdwpscache/scache/ddm"
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
)

// ClientID names a client of a session.
type ClientID int

// An out is a packet to send: to the VM, or to one client.
type out struct {
	toVM   bool
	client ClientID
	packet []byte
}

// ClientStats counts what one client did and what the Speculator did for it.
type ClientStats struct {
	Commands  int64 // commands it sent
	Forwarded int64 // of them, sent to the VM
	Hits      int64 // answered from the cache
	Belayed   int64 // answered from a reply in flight
	Events    int64 // event composites delivered to it
}

// route says whose command a VM-side id carries.
type route struct {
	client   ClientID
	id       uint32 // the client's own id
	cmd      jdwp.Command
	kind     jdwp.EventKind // EventRequest.Set
	internal bool           // sent by the session itself: the reply is dropped
}

type clientState struct {
	ddm, jdwpCmds  bool // what it has spoken
	vmSuspends     int
	threadSuspends map[jdwp.ObjectID]int
	requests       map[int32]jdwp.EventKind
	stats          ClientStats
}

// mux is the session's state machine: packets in, packets out. It is not
// safe for concurrent use: the Session's lock guards it.
type mux struct {
	spec     *scache.Speculator
	sizes    jdwp.IDSizes
	nextID   uint32
	routes   map[uint32]route
	clients  map[ClientID]*clientState
	requests map[int32]ClientID
}

func newMux(spec *scache.Speculator) *mux {
	return &mux{spec: spec, sizes: jdwp.DefaultIDSizes, nextID: 1, routes: map[uint32]route{},
		clients: map[ClientID]*clientState{}, requests: map[int32]ClientID{}}
}

func (m *mux) join(c ClientID) {
	m.clients[c] = &clientState{threadSuspends: map[jdwp.ObjectID]int{}, requests: map[int32]jdwp.EventKind{}}
}

// vmID returns a fresh id for the VM connection: below the synthetic range,
// not in use.
func (m *mux) vmID() uint32 {
	for {
		id := m.nextID
		m.nextID++
		if m.nextID >= scache.FirstSyntheticID {
			m.nextID = 1
		}
		if _, busy := m.routes[id]; !busy && id != 0 {
			return id
		}
	}
}

// upstream sends a command to the VM through the Speculator under a fresh id
// and routes whatever the Speculator answers at once.
func (m *mux) upstream(r route, packet []byte) []out {
	id := m.vmID()
	m.routes[id] = r
	p := append([]byte(nil), packet...)
	jdwp.SetPacketID(p, id)
	resp := m.spec.OnUpstream(p)
	var outs []out
	for _, q := range resp.Edict.Upstream {
		outs = append(outs, out{toVM: true, packet: append([]byte(nil), q...)})
	}
	if cs := m.clients[r.client]; cs != nil && !r.internal {
		switch resp.Outcome {
		case scache.Forwarded:
			cs.stats.Forwarded++
		case scache.Answered, scache.AnsweredAhead:
			cs.stats.Hits++
		}
	}
	for _, q := range resp.Edict.Downstream {
		h, err := jdwp.ParseHeader(q)
		if err != nil {
			continue
		}
		outs = append(outs, m.reply(append([]byte(nil), q...), h, false)...)
	}
	return outs
}

// fromClient takes a packet a client sent.
func (m *mux) fromClient(c ClientID, packet []byte) []out {
	cs := m.clients[c]
	h, err := jdwp.ParseHeader(packet)
	if cs == nil || err != nil {
		return nil
	}
	if h.IsReply() {
		// A reply to a command of the VM's: its id is the VM's own.
		return []out{{toVM: true, packet: append([]byte(nil), packet...)}}
	}
	cs.stats.Commands++
	cmd := h.Cmd()
	if cmd == ddm.Cmd {
		cs.ddm = true
	} else {
		cs.jdwpCmds = true
	}
	r := route{client: c, id: h.ID, cmd: cmd}
	switch cmd {
	case jdwp.CmdVirtualMachineDispose:
		outs := m.leave(c, false)
		return append(outs, out{client: c, packet: jdwp.AppendReply(nil, h.ID, jdwp.ErrNone, nil)})
	case jdwp.CmdEventRequestClearAllBreakpoints:
		// Only this client's breakpoints: the others' are none of its business.
		var outs []out
		for id, kind := range cs.requests {
			if kind == jdwp.EventBreakpoint {
				outs = append(outs, m.clear(c, kind, id)...)
			}
		}
		return append(outs, out{client: c, packet: jdwp.AppendReply(nil, h.ID, jdwp.ErrNone, nil)})
	case jdwp.CmdEventRequestSet:
		if len(packet) > jdwp.HeaderSize {
			r.kind = jdwp.EventKind(packet[jdwp.HeaderSize])
		}
	case jdwp.CmdEventRequestClear:
		var cl jdwp.EventRequestClearCommand
		if jdwp.Unmarshal(jdwp.Data(packet), m.sizes, &cl) == nil && m.requests[cl.RequestID] == c {
			delete(m.requests, cl.RequestID)
			delete(cs.requests, cl.RequestID)
		}
	case jdwp.CmdVirtualMachineSuspend:
		cs.vmSuspends++
	case jdwp.CmdVirtualMachineResume:
		if cs.vmSuspends > 0 {
			cs.vmSuspends--
		}
	case jdwp.CmdThreadReferenceSuspend, jdwp.CmdThreadReferenceResume:
		r := jdwp.NewReader(jdwp.Data(packet), m.sizes)
		t := r.ObjectID()
		if r.Err() == nil {
			if cmd == jdwp.CmdThreadReferenceSuspend {
				cs.threadSuspends[t]++
			} else if cs.threadSuspends[t] > 0 {
				cs.threadSuspends[t]--
			}
		}
	}
	return m.upstream(r, packet)
}

// clear sends EventRequest.Clear of a client's request on its behalf.
func (m *mux) clear(c ClientID, kind jdwp.EventKind, id int32) []out {
	delete(m.requests, id)
	if cs := m.clients[c]; cs != nil {
		delete(cs.requests, id)
	}
	p := jdwp.AppendCommandPacket(nil, 0, &jdwp.EventRequestClearCommand{EventKind: kind, RequestID: id}, m.sizes)
	return m.upstream(route{client: c, internal: true, cmd: jdwp.CmdEventRequestClear}, p)
}

// leave forgets a client: its event requests are cleared and the
// suspensions it owns resumed. gone says whether its connection is closed.
func (m *mux) leave(c ClientID, gone bool) []out {
	cs := m.clients[c]
	if cs == nil {
		return nil
	}
	var outs []out
	for id, kind := range cs.requests {
		outs = append(outs, m.clear(c, kind, id)...)
	}
	for ; cs.vmSuspends > 0; cs.vmSuspends-- {
		p := jdwp.AppendCommandPacket(nil, 0, &jdwp.VMResumeCommand{}, m.sizes)
		outs = append(outs, m.upstream(route{client: c, internal: true, cmd: jdwp.CmdVirtualMachineResume}, p)...)
	}
	for t, n := range cs.threadSuspends {
		for ; n > 0; n-- {
			w := jdwp.NewWriter(m.sizes)
			w.ObjectID(t)
			p := jdwp.AppendCommand(nil, 0, jdwp.CmdThreadReferenceResume, w.Bytes())
			outs = append(outs, m.upstream(route{client: c, internal: true, cmd: jdwp.CmdThreadReferenceResume}, p)...)
		}
	}
	if gone {
		delete(m.clients, c)
	} else {
		cs.threadSuspends = map[jdwp.ObjectID]int{}
	}
	return outs
}

// fromVM takes a packet the VM sent.
func (m *mux) fromVM(packet []byte) []out {
	resp := m.spec.OnDownstream(packet)
	var outs []out
	for _, q := range resp.Edict.Upstream {
		outs = append(outs, out{toVM: true, packet: append([]byte(nil), q...)})
	}
	for _, q := range resp.Edict.Downstream {
		q := append([]byte(nil), q...)
		h, err := jdwp.ParseHeader(q)
		if err != nil {
			continue
		}
		if h.IsReply() {
			// A reply with another id than the VM's answers a held (belayed) command.
			outs = append(outs, m.reply(q, h, h.ID != jdwp.PacketID(packet))...)
			continue
		}
		outs = append(outs, m.vmCommand(q, h)...)
	}
	return outs
}

// reply routes a reply back to the client whose command it answers.
func (m *mux) reply(q []byte, h jdwp.Header, belayed bool) []out {
	r, ok := m.routes[h.ID]
	if !ok {
		return nil
	}
	delete(m.routes, h.ID)
	cs := m.clients[r.client]
	if r.internal || cs == nil {
		return nil
	}
	if belayed {
		cs.stats.Belayed++
	}
	if h.ErrorCode == jdwp.ErrNone {
		switch r.cmd {
		case jdwp.CmdEventRequestSet:
			var rep jdwp.IntReply
			if jdwp.Unmarshal(jdwp.Data(q), m.sizes, &rep) == nil {
				m.requests[rep.Value] = r.client
				cs.requests[rep.Value] = r.kind
			}
		case jdwp.CmdVirtualMachineIDSizes:
			var rep jdwp.VMIDSizesReply
			if jdwp.Unmarshal(jdwp.Data(q), m.sizes, &rep) == nil && rep.Sizes.Validate() == nil {
				m.sizes = rep.Sizes
			}
		}
	}
	jdwp.SetPacketID(q, r.id)
	return []out{{client: r.client, packet: q}}
}

// vmCommand routes a command of the VM: events to their requests' clients,
// DDM to the clients that speak it.
func (m *mux) vmCommand(q []byte, h jdwp.Header) []out {
	var outs []out
	switch h.Cmd() {
	case ddm.Cmd:
		for c, cs := range m.clients {
			if cs.ddm {
				outs = append(outs, out{client: c, packet: q})
			}
		}
		return outs
	case jdwp.CmdEventComposite:
		var comp jdwp.Composite
		if jdwp.Unmarshal(jdwp.Data(q), m.sizes, &comp) != nil {
			break // undecodable: every debugger gets it as it is
		}
		per := map[ClientID][]jdwp.Event{}
		for _, e := range comp.Events {
			if e.Request() == 0 {
				for c, cs := range m.clients {
					if m.debugger(cs) {
						per[c] = append(per[c], e)
					}
				}
				continue
			}
			if c, ok := m.requests[e.Request()]; ok {
				per[c] = append(per[c], e)
			}
		}
		for c, events := range per {
			cs := m.clients[c]
			cs.stats.Events++
			m.ownSuspension(cs, comp.SuspendPolicy, events)
			p := q // all of it for one client: forwarded as the VM sent it
			if len(events) != len(comp.Events) {
				p = jdwp.AppendCommandPacket(nil, h.ID, &jdwp.Composite{SuspendPolicy: comp.SuspendPolicy, Events: events}, m.sizes)
			}
			outs = append(outs, out{client: c, packet: p})
		}
		return outs
	}
	for c, cs := range m.clients {
		if m.debugger(cs) {
			outs = append(outs, out{client: c, packet: q})
		}
	}
	return outs
}

// debugger reports whether a client debugs (not a DDM-only tool).
func (m *mux) debugger(cs *clientState) bool { return cs.jdwpCmds || !cs.ddm }

// ownSuspension records the suspension an event delivered to a client causes.
func (m *mux) ownSuspension(cs *clientState, policy jdwp.SuspendPolicy, events []jdwp.Event) {
	switch policy {
	case jdwp.SuspendPolicyAll:
		cs.vmSuspends++
	case jdwp.SuspendPolicyEventThread:
		for _, e := range events {
			if t, ok := jdwp.EventThread(e); ok {
				cs.threadSuspends[t]++
				return
			}
		}
	}
}
