package scache

import (
	"fmt"

	"github.com/jdwpscache/scache/jdwp"
)

// Invalidation: what makes cached replies and queued speculation stale, and
// how they are dropped. A class unloaded or redefined drops its metadata,
// objects disposed drop their facts; replies in flight about them still
// answer the commands held on them but are not cached (poisoned).

// unloadSignature evicts everything about the classes of a signature. Any
// class whose signature is unknown might have it too (class loaders load the
// same name many times), so all of those are evicted as well.
func (s *Speculator) unloadSignature(sig string) {
	ids := s.classes.unload(sig)
	unknown := func(p subject) bool { return p.life == lifetimeClass && !s.classes.known(p.class) }
	for _, id := range s.cache.classes() {
		if !s.classes.known(id) {
			ids = append(ids, id)
		}
	}
	for _, p := range s.inflight.pending {
		if p.key != "" && unknown(p.subject) {
			ids = append(ids, p.class)
		}
	}
	s.queue.each(func(q queued) {
		if unknown(q.subject) {
			ids = append(ids, q.class)
		}
	})
	s.invalidate(ids)
}

// invalidate evicts the cached replies of classes, keeps replies in flight
// about them out of the cache (they still answer held commands), and drops
// queued speculation about them.
func (s *Speculator) invalidate(classes []jdwp.ReferenceTypeID) {
	if len(classes) == 0 {
		return
	}
	set := make(map[jdwp.ReferenceTypeID]bool, len(classes))
	for _, id := range classes {
		set[id] = true
		s.cache.removeClass(id)
	}
	s.stop.forgetTopIn(set)
	s.forget(func(p subject) bool { return p.life == lifetimeClass && set[p.class] })
}

// onDisposeObjects evicts what is known of the objects a
// VirtualMachine.DisposeObjects command names: their ids may be reused.
func (s *Speculator) onDisposeObjects(data []byte) error {
	var m jdwp.VMDisposeObjectsCommand
	if err := jdwp.Unmarshal(data, s.sizes, &m); err != nil {
		return fmt.Errorf("DisposeObjects command: %w", err)
	}
	set := make(map[jdwp.ObjectID]bool, len(m.Requests))
	for _, r := range m.Requests {
		set[r.Object] = true
		s.cache.removeObject(r.Object)
		s.unpark(r.Object) // a thread's id may no longer name it
		if r.Object == s.susp.stopped {
			s.susp.stopped = 0 // its id may no longer name it: no step request ahead
		}
	}
	s.forget(func(p subject) bool { return p.life == lifetimeObject && set[p.object] })
	return nil
}

// forget keeps the replies in flight that match out of the cache (they still
// answer held commands) and drops the queued speculation that matches.
func (s *Speculator) forget(match func(subject) bool) { forgetNoting(s, match, nil) }

// forgetNoting is forget that also calls note (unless nil) with the key of
// each reply in flight it keeps out of the cache (not kept out already)
// and of each queued command it drops.
func forgetNoting(s *Speculator, match func(subject) bool, note func(Key)) {
	s.inflight.poisonWhere(func(p *inFlight) bool {
		if p.key == "" || !match(p.subject) {
			return false
		}
		if note != nil && !p.poisoned {
			note(p.key)
		}
		return true
	})
	s.queue.dropWhere(func(q queued) bool {
		if !match(q.subject) {
			return false
		}
		if note != nil {
			note(q.key)
		}
		return true
	})
}
