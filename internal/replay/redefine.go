package replay

import (
	"github.com/jdwpscache/scache/jdwp"
	"github.com/jdwpscache/scache/scache"
)

// classGens counts the redefinitions of each class (VirtualMachine.RedefineClasses):
// a recorded answer about a class stays true until that class, and no other,
// is redefined.
type classGens map[jdwp.ReferenceTypeID]int

// redefine counts the classes a RedefineClasses command packet names.
func (g classGens) redefine(packet []byte, sizes jdwp.IDSizes) {
	var m jdwp.VMRedefineClassesCommand
	if jdwp.Unmarshal(jdwp.Data(packet), sizes, &m) != nil {
		return
	}
	for _, c := range m.Classes {
		g[c.RefType]++
	}
}

// of returns the redefinitions so far of the class a key is about (0 for
// keys not about a class).
func (g classGens) of(key scache.Key, sizes jdwp.IDSizes) int {
	if class, ok := key.Class(sizes); ok {
		return g[class]
	}
	return 0
}
