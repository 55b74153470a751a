package scache

import (
	"math"
	"slices"
	"strings"

	"github.com/hashicorp/golang-lru/v2/simplelru"
	"github.com/jdwpscache/scache/jdwp"
)

// A lifetime says until when a cached reply stays true.
type lifetime uint8

const (
	// lifetimeClass: class metadata (line tables, methods, source names), true
	// until the class is unloaded or redefined, or the VM dies.
	lifetimeClass lifetime = iota
	// lifetimeSuspension: state of suspended threads or of objects, true only
	// within one suspension epoch (see state.go).
	lifetimeSuspension
	// lifetimeSession: facts of the VM that never change in a session (its
	// version, capabilities), true until the VM ends.
	lifetimeSession
	// lifetimeObject: what never changes about an object (its type, a
	// string's value), true until its id is disposed (DisposeObjects) or the
	// VM ends: JDWP never reuses an object id that was not disposed.
	lifetimeObject
)

// entryOverhead approximates the bookkeeping bytes of one cache entry (list
// element, map slot, entry struct) so that many tiny replies still count.
const entryOverhead = 96

// An entry is one cached reply.
type entry struct {
	reply     []byte               // the whole reply packet, as the VM sent it
	class     jdwp.ReferenceTypeID // of a lifetimeClass entry
	object    jdwp.ObjectID        // of a lifetimeObject entry
	thread    jdwp.ObjectID        // of a lifetimeSuspension entry about a parked thread (parked.go)
	values    bool                 // a suspension entry that SetValues commands change
	life      lifetime
	epoch     uint64 // the suspension epoch of a lifetimeSuspension entry
	synthetic bool   // the reply answered a synthetic command
	used      bool   // a debugger command was answered from it
	moving    bool   // served only under the rules of sequential.go
	arrived   uint64 // its position in the VM's stream, of a moving entry
	// older is the reply of the same moving command that arrived before
	// this one, if still kept (at most maxRepeats back): a debugger that
	// asks it twice in a view gets the one that stands where each ask does.
	older *entry
}

func (e *entry) size(key Key) int { return len(e.reply) + len(key) + entryOverhead }

// This file owns the reply cache: the entries, their byte count and the
// index by class and object. Only replyCache's methods change them; the
// Speculator adds what replies it keeps (downstream.go) and takes what
// answers the debugger (upstream.go), lookup.go reads it for the families,
// and the moving entries' chains (sequential.go's rules) are its methods
// at the end of this file.

// replyCache is an LRU of replies bounded in bytes, indexed by class so that a
// class's entries can be evicted together. It is not safe for concurrent use:
// the Speculator's lock guards it.
type replyCache struct {
	lru      *simplelru.LRU[Key, *entry]
	bytes    int
	peak     int // the most bytes held at once
	max      int
	byClass  map[jdwp.ReferenceTypeID]map[Key]struct{}
	byObject map[jdwp.ObjectID]map[Key]struct{}
	state    map[Key]struct{}                   // the keys of suspension entries, but parked threads'
	byThread map[jdwp.ObjectID]map[Key]struct{} // the keys of parked threads' suspension entries
	values   map[Key]struct{}                   // the keys of suspension entries that are values (GetValues)
	// wasted is called for every synthetic entry that leaves unused.
	wasted func()
	// chaining: the entry being replaced stays behind its successor (an
	// older reply of a moving command), so it is not gone.
	chaining bool
}

func newReplyCache(maxBytes int, wasted func()) *replyCache {
	c := &replyCache{max: maxBytes, byClass: make(map[jdwp.ReferenceTypeID]map[Key]struct{}),
		byObject: make(map[jdwp.ObjectID]map[Key]struct{}), byThread: make(map[jdwp.ObjectID]map[Key]struct{}), state: make(map[Key]struct{}), values: make(map[Key]struct{}),
		wasted: wasted}
	// The count bound is never reached: the byte bound evicts first.
	c.lru, _ = simplelru.NewLRU[Key, *entry](math.MaxInt32, c.onEvict)
	return c
}

func (c *replyCache) onEvict(key Key, e *entry) {
	c.bytes -= e.size(key)
	switch e.life {
	case lifetimeSuspension:
		delete(c.state, key)
		delete(c.values, key)
		unindex(c.byThread, e.thread, key)
	case lifetimeObject:
		unindex(c.byObject, e.object, key)
	default:
		unindex(c.byClass, e.class, key)
	}
	if !c.chaining {
		c.drop(e)
	}
}

// drop counts as wasted each synthetic reply of e's chain that leaves unused.
func (c *replyCache) drop(e *entry) {
	for x := e; x != nil; x = x.older {
		if x.synthetic && !x.used && c.wasted != nil {
			c.wasted()
		}
	}
}

// get returns the entry of key and marks it recently used.
func (c *replyCache) get(key Key) (*entry, bool) { return c.lru.Get(key) }

// peek returns the entry of key, without touching recency.
func (c *replyCache) peek(key Key) (*entry, bool) { return c.lru.Peek(key) }

// remove drops the entry of key.
func (c *replyCache) remove(key Key) { c.lru.Remove(key) }

// contains reports whether key is cached, without touching recency.
func (c *replyCache) contains(key Key) bool { return c.lru.Contains(key) }

// add caches e under key, then evicts the least recently used entries until
// the cache fits its bound. A reply larger than the whole bound is not cached.
func (c *replyCache) add(key Key, e *entry) {
	n := e.size(key)
	if n > c.max {
		if e.synthetic && c.wasted != nil {
			c.wasted()
		}
		return
	}
	if old, ok := c.lru.Peek(key); ok && e.older == old {
		c.chaining = true
	}
	c.lru.Remove(key)
	c.chaining = false
	c.lru.Add(key, e)
	c.bytes += n
	c.peak = max(c.peak, c.bytes)
	switch e.life {
	case lifetimeSuspension:
		if e.thread != 0 {
			index(c.byThread, e.thread, key)
		} else {
			c.state[key] = struct{}{}
		}
		if e.values {
			c.values[key] = struct{}{}
		}
	case lifetimeObject:
		index(c.byObject, e.object, key)
	default:
		index(c.byClass, e.class, key)
	}
	for c.bytes > c.max {
		c.lru.RemoveOldest()
	}
}

// removeClass evicts every entry of a class.
func (c *replyCache) removeClass(class jdwp.ReferenceTypeID) {
	for key := range c.byClass[class] {
		c.lru.Remove(key)
	}
}

// usedKeys returns the keys of a class's entries that answered a debugger
// command (its own, or one answered from speculation), in key order.
func (c *replyCache) usedKeys(class jdwp.ReferenceTypeID) []Key {
	var keys []Key
	for key := range c.byClass[class] {
		if e, ok := c.lru.Peek(key); ok && e.used {
			keys = append(keys, key)
		}
	}
	slices.Sort(keys)
	return keys
}

// removeObject evicts every entry about an object.
func (c *replyCache) removeObject(object jdwp.ObjectID) {
	for key := range c.byObject[object] {
		c.lru.Remove(key)
	}
}

// index adds key to the keys of id.
func index[ID comparable](m map[ID]map[Key]struct{}, id ID, key Key) {
	keys := m[id]
	if keys == nil {
		keys = make(map[Key]struct{})
		m[id] = keys
	}
	keys[key] = struct{}{}
}

// unindex removes key from the keys of id.
func unindex[ID comparable](m map[ID]map[Key]struct{}, id ID, key Key) {
	if keys := m[id]; keys != nil {
		delete(keys, key)
		if len(keys) == 0 {
			delete(m, id)
		}
	}
}

// purgeValues evicts every suspension entry that is values.
func (c *replyCache) purgeValues(dropped []Key) []Key {
	for key := range c.values {
		dropped = append(dropped, key)
		c.lru.Remove(key)
	}
	return dropped
}

// valueReadsOf returns, in key order, the keys of at most limit cached
// reads of values whose keys begin with subject (derived_parts.go).
func (c *replyCache) valueReadsOf(subject Key, limit int) []Key {
	var keys []Key
	for key := range c.values {
		if strings.HasPrefix(string(key), string(subject)) {
			keys = append(keys, key)
		}
	}
	slices.Sort(keys)
	return keys[:min(len(keys), limit)]
}

// removeThread evicts every suspension entry about a parked thread.
func (c *replyCache) removeThread(thread jdwp.ObjectID) {
	for key := range c.byThread[thread] {
		c.lru.Remove(key)
	}
}

// purgeState evicts every suspension entry but those about parked
// threads, which outlive the epoch (parked.go).
func (c *replyCache) purgeState() {
	for key := range c.state {
		c.lru.Remove(key)
	}
}

// classes returns the classes that have entries.
func (c *replyCache) classes() []jdwp.ReferenceTypeID {
	out := make([]jdwp.ReferenceTypeID, 0, len(c.byClass))
	for id := range c.byClass {
		out = append(out, id)
	}
	return out
}

// purge evicts everything.
func (c *replyCache) purge() { c.lru.Purge() }

func (c *replyCache) len() int { return c.lru.Len() }

// Moving entries (sequential.go) keep their older replies in a chain,
// newest first; the rules of positions say which may answer now.

// holds reports whether the cache holds a reply for key that may still
// answer the debugger. A moving entry past the rules is dropped: a fresh
// one may be asked in its place.
func (c *replyCache) holds(key Key, pos *positions) bool {
	e, ok := c.peek(key)
	if !ok {
		return false
	}
	if e.moving && !pos.servable(e.arrived) {
		c.remove(key)
		return false
	}
	return true
}

// olderReplies returns the replies of the moving command key still
// cached, newest first, for the next one to keep behind it.
func (c *replyCache) olderReplies(key Key) *entry {
	e, ok := c.peek(key)
	if !ok || !e.moving {
		return nil
	}
	for n, x := 1, e; x != nil; n, x = n+1, x.older {
		if n == maxRepeats {
			c.drop(x.older)
			x.older = nil
		}
	}
	return e
}

// servableReply returns the oldest reply of a moving command's chain
// (newest first, from e) that the rules let answer the debugger now.
func (c *replyCache) servableReply(e *entry, pos *positions) (*entry, bool) {
	var found *entry
	for x := e; x != nil; x = x.older {
		if pos.servable(x.arrived) {
			found = x
		}
	}
	return found, found != nil
}
