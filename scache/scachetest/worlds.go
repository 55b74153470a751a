package scachetest

import "github.com/jdwpscache/scache/jdwp"

// World returns a model VM with a few classes (a class, a helper, an
// interface, a synthetic class) and two threads suspended in them: thread
// 1 four frames deep, thread 2 one frame deep.
func World(sizes jdwp.IDSizes) (*ModelVM, []*ModelClass) {
	vm := NewModelVM(sizes)
	a := vm.AddClass("LMain;", 3, false, false)
	b := vm.AddClass("LHelper;", 2, false, false)
	c := vm.AddClass("LShape;", 1, true, false)
	d := vm.AddClass("LGenerated;", 1, false, true)
	vm.SetThread(1, []ModelFrame{
		{Class: b.ID, Method: b.Methods[0], Index: 5},
		{Class: c.ID, Method: c.Methods[0], Index: 2},
		{Class: a.ID, Method: a.Methods[1], Index: 9},
		{Class: a.ID, Method: a.Methods[0], Index: 3},
	})
	vm.SetThread(2, []ModelFrame{{Class: d.ID, Method: d.Methods[0], Index: 1}})
	return vm, []*ModelClass{a, b, c, d}
}

// OneFrameWorld returns a model VM with one class and thread 7 suspended in
// its first method, one frame deep.
func OneFrameWorld(sizes jdwp.IDSizes) (*ModelVM, *ModelClass) {
	vm := NewModelVM(sizes)
	c := vm.AddClass("LMain;", 2, false, false)
	vm.SetThread(7, []ModelFrame{{Class: c.ID, Method: c.Methods[0], Index: 4}})
	return vm, c
}
