package ddm

import "fmt"

// A Message is the typed data of one chunk type in one direction.
type Message interface {
	// ChunkType is the type of the chunk that carries the message.
	ChunkType() Type
	encode(w *writer)
	decode(r *reader)
}

// Encode returns the chunk that carries m.
func Encode(m Message) Chunk {
	var w writer
	m.encode(&w)
	if w.b == nil {
		w.b = []byte{}
	}
	return Chunk{Type: m.ChunkType(), Data: w.b}
}

// Decode reads the chunk's data into m. The chunk must be of m's type and its
// data must be used up, except by messages that keep unknown trailing bytes.
func Decode(c Chunk, m Message) error {
	if c.Type != m.ChunkType() {
		return fmt.Errorf("ddm: a %s chunk is not a %T (%s)", c.Type, m, m.ChunkType())
	}
	r := newReader(c.Data)
	m.decode(r)
	if err := r.Err(); err != nil {
		return fmt.Errorf("ddm: %s chunk: %w", c.Type, err)
	}
	if r.Len() != 0 {
		return fmt.Errorf("ddm: %s chunk: %d bytes left over", c.Type, r.Len())
	}
	return nil
}
