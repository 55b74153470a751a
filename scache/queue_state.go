package scache

// queueState owns the speculation waiting to go out: the queued commands,
// urgent first, the set of their keys, and the next synthetic id. Only its
// methods below change them; the gate that fills it and the pump that
// empties it are the Speculator's (queue.go).
type queueState struct {
	urgent  []queued // state commands of the stop, sent first
	waiting []queued // the others, sent as in-flight slots free up
	keys    map[Key]struct{}
	nextID  uint32 // the next synthetic id to try
	max     int    // the most commands queued at once
	// shut: nothing is queued any more (the session ends) or ever (a
	// follower: a far half speculates only what its near half sends).
	shut bool
}

func newQueue(max int, shut bool) queueState {
	return queueState{keys: make(map[Key]struct{}), nextID: FirstSyntheticID, max: max, shut: shut}
}

// closed reports whether nothing may be queued now: the queue is shut or full.
func (q *queueState) closed() bool {
	return q.shut || len(q.waiting)+len(q.urgent) >= q.max
}

// has reports whether a command with key is queued.
func (q *queueState) has(key Key) bool {
	_, ok := q.keys[key]
	return ok
}

// push queues c, urgent or not.
func (q *queueState) push(c queued, urgent bool) {
	q.keys[c.key] = struct{}{}
	if urgent {
		q.urgent = append(q.urgent, c)
	} else {
		q.waiting = append(q.waiting, c)
	}
}

// drain hands the queued commands to send, urgent first and each list in
// order, while room reports room for one more, and removes those handed.
func (q *queueState) drain(room func() bool, send func(queued)) {
	q.urgent = q.drainList(q.urgent, room, send)
	q.waiting = q.drainList(q.waiting, room, send)
}

func (q *queueState) drainList(list []queued, room func() bool, send func(queued)) []queued {
	sent := 0
	for len(list) > sent && room() {
		c := list[sent]
		sent++
		delete(q.keys, c.key)
		send(c)
	}
	n := copy(list, list[sent:])
	clear(list[n:])
	return list[:n]
}

// each calls f for every queued command.
func (q *queueState) each(f func(queued)) {
	for _, list := range [][]queued{q.urgent, q.waiting} {
		for _, c := range list {
			f(c)
		}
	}
}

// dropWhere removes the queued commands for which drop is true.
func (q *queueState) dropWhere(drop func(queued) bool) {
	q.waiting = q.dropFrom(q.waiting, drop)
	q.urgent = q.dropFrom(q.urgent, drop)
}

func (q *queueState) dropFrom(list []queued, drop func(queued) bool) []queued {
	kept := list[:0]
	for _, c := range list {
		if drop(c) {
			delete(q.keys, c.key)
			continue
		}
		kept = append(kept, c)
	}
	clear(list[len(kept):])
	return kept
}

// empty drops every queued command.
func (q *queueState) empty() {
	q.waiting, q.urgent = nil, nil
	clear(q.keys)
}

// shutDown drops every queued command and queues nothing more.
func (q *queueState) shutDown() {
	q.empty()
	q.shut = true
}

// syntheticID returns the next id of the synthetic range that busy does
// not report in flight, wrapping at the end of the range.
func (q *queueState) syntheticID(busy func(uint32) bool) uint32 {
	for {
		id := q.nextID
		if q.nextID == LastSyntheticID {
			q.nextID = FirstSyntheticID
		} else {
			q.nextID++
		}
		if !busy(id) {
			return id
		}
	}
}
