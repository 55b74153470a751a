package jdwp_test

import (
	"bytes"
	"testing"

	"github.com/jdwpscache/scache/jdwp"
)

// Seed corpora live in testdata/fuzz/<target>; they start from the packets
// captured from HotSpot in testdata/hotspot17.

// FuzzParseHeader: any bytes parse or fail with an error, never panic; a
// parsed header re-encodes to the same 11 bytes.
func FuzzParseHeader(f *testing.F) {
	f.Fuzz(func(t *testing.T, p []byte) {
		h, err := jdwp.ParseHeader(p)
		if err != nil {
			return
		}
		if got := jdwp.AppendHeader(nil, h); !bytes.Equal(got, p[:jdwp.HeaderSize]) {
			t.Fatalf("header %v re-encodes to %x, want %x", h, got, p[:jdwp.HeaderSize])
		}
		fr := jdwp.NewFramer(nil, bytes.NewReader(p))
		q, err := fr.ReadPacket()
		if err != nil || !bytes.Equal(p, q) {
			t.Fatalf("framer read %x, %v; want %x", q, err, p)
		}
	})
}

// FuzzReader decodes the data with every typed message, with id sizes taken
// from the first byte: never a panic, and whatever decodes re-encodes to the
// bytes it consumed.
func FuzzReader(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		n := int(data[0]%8) + 1
		sizes := jdwp.IDSizes{FieldID: n, MethodID: n, ObjectID: n, ReferenceTypeID: n, FrameID: n}
		data = data[1:]
		for _, c := range jdwp.AllCommands() {
			for _, m := range []jdwp.Message{jdwp.NewCommandMessage(c), jdwp.NewReplyMessage(c)} {
				if m == nil {
					continue
				}
				if err := jdwp.Unmarshal(data, sizes, m); err != nil {
					continue
				}
				// Strings are re-encoded canonically and booleans as 0/1, so only
				// the length is compared for messages holding them.
				if got := jdwp.Marshal(m, sizes); len(got) != len(data) && !hasText(m) {
					t.Fatalf("%s %T: %x re-encodes to %x", c, m, data, got)
				}
			}
		}
	})
}

func hasText(m jdwp.Message) bool {
	switch m.(type) {
	case *jdwp.StringReply, *jdwp.VMVersionReply, *jdwp.VMAllClassesReply, *jdwp.VMAllClassesWithGenericReply,
		*jdwp.VMClassesBySignatureCommand, *jdwp.RefTypeSignatureWithGenericReply, *jdwp.RefTypeMethodsReply,
		*jdwp.RefTypeFieldsReply, *jdwp.MethodVariableTableReply, *jdwp.EventRequestSetCommand, *jdwp.Composite:
		return true
	}
	return false
}

// FuzzComposite decodes event composites: never a panic, and a decoded
// composite re-encodes to something that decodes to the same events.
func FuzzComposite(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		var c jdwp.Composite
		if err := jdwp.Unmarshal(data, jdwp.DefaultIDSizes, &c); err != nil {
			return
		}
		again := jdwp.Marshal(&c, jdwp.DefaultIDSizes)
		var d jdwp.Composite
		if err := jdwp.Unmarshal(again, jdwp.DefaultIDSizes, &d); err != nil {
			t.Fatalf("re-encoded composite does not decode: %v", err)
		}
		if !bytes.Equal(again, jdwp.Marshal(&d, jdwp.DefaultIDSizes)) {
			t.Fatalf("composite is not stable under re-encoding")
		}
	})
}
