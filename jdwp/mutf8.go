package jdwp

import (
	"unicode/utf16"
	"unicode/utf8"
)

// JDWP strings are in the JVM's modified UTF-8: U+0000 is written as the two
// bytes C0 80, and characters above U+FFFF as a UTF-16 surrogate pair, each
// half encoded as a three-byte sequence.

// DecodeModifiedUTF8 converts modified UTF-8 to a Go (UTF-8) string. Bytes that
// form no valid sequence are kept as they are, so nothing is lost.
func DecodeModifiedUTF8(b []byte) string {
	plain := true
	for _, c := range b {
		if c == 0xC0 || c == 0xED {
			plain = false
			break
		}
	}
	if plain {
		return string(b)
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		switch {
		case b[i] == 0xC0 && i+1 < len(b) && b[i+1] == 0x80:
			out = append(out, 0)
			i += 2
		case i+5 < len(b) && isSurrogateSeq(b[i:i+3], 0xA0) && isSurrogateSeq(b[i+3:i+6], 0xB0):
			hi := decode3(b[i : i+3])
			lo := decode3(b[i+3 : i+6])
			out = utf8.AppendRune(out, utf16.DecodeRune(hi, lo))
			i += 6
		default:
			out = append(out, b[i])
			i++
		}
	}
	return string(out)
}

// isSurrogateSeq reports whether b is the 3-byte encoding of a high (mark 0xA0)
// or low (mark 0xB0) surrogate.
func isSurrogateSeq(b []byte, mark byte) bool {
	return b[0] == 0xED && b[1]&0xF0 == mark && b[2]&0xC0 == 0x80
}

func decode3(b []byte) rune {
	return rune(b[0]&0x0F)<<12 | rune(b[1]&0x3F)<<6 | rune(b[2]&0x3F)
}

// AppendModifiedUTF8 appends the modified UTF-8 form of s to b. Bytes of s
// that are not valid UTF-8 are appended as they are.
func AppendModifiedUTF8(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c != 0 && c < utf8.RuneSelf {
			b = append(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, c)
		case r == 0:
			b = append(b, 0xC0, 0x80)
		case r > 0xFFFF:
			hi, lo := utf16.EncodeRune(r)
			b = append3(append3(b, hi), lo)
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return b
}

func append3(b []byte, r rune) []byte {
	return append(b, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
}
