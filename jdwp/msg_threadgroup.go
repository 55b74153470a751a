package jdwp

// Messages of the thread-group tree: VirtualMachine.TopLevelThreadGroups,
// ThreadReference.ThreadGroup and the ThreadGroupReference (12) command
// set, which a debugger's threads view (jdb's threads) walks.

// VMTopLevelThreadGroupsCommand asks for the thread groups that have no
// parent (VirtualMachine.TopLevelThreadGroups). Its reply is an
// ObjectIDsReply.
type VMTopLevelThreadGroupsCommand struct{ emptyData }

// Command implements CommandMessage.
func (*VMTopLevelThreadGroupsCommand) Command() Command { return CmdVirtualMachineTopLevelThreadGroups }

// ThreadGroupOfCommand asks for the thread group of a thread
// (ThreadReference.ThreadGroup). Its reply is an ObjectIDReply.
type ThreadGroupOfCommand struct{ Thread ThreadID }

// Command implements CommandMessage.
func (*ThreadGroupOfCommand) Command() Command { return CmdThreadReferenceThreadGroup }

// Encode implements Message.
func (m *ThreadGroupOfCommand) Encode(w *Writer) { w.ObjectID(m.Thread) }

// Decode implements Message.
func (m *ThreadGroupOfCommand) Decode(r *Reader) error { m.Thread = r.ObjectID(); return r.Err() }

// ThreadGroupNameCommand asks for a thread group's name
// (ThreadGroupReference.Name). Its reply is a StringReply.
type ThreadGroupNameCommand struct{ Group ThreadGroupID }

// Command implements CommandMessage.
func (*ThreadGroupNameCommand) Command() Command { return CmdThreadGroupReferenceName }

// Encode implements Message.
func (m *ThreadGroupNameCommand) Encode(w *Writer) { w.ObjectID(m.Group) }

// Decode implements Message.
func (m *ThreadGroupNameCommand) Decode(r *Reader) error { m.Group = r.ObjectID(); return r.Err() }

// ThreadGroupParentCommand asks for a thread group's parent
// (ThreadGroupReference.Parent). Its reply is an ObjectIDReply, 0 for a
// top-level group.
type ThreadGroupParentCommand struct{ Group ThreadGroupID }

// Command implements CommandMessage.
func (*ThreadGroupParentCommand) Command() Command { return CmdThreadGroupReferenceParent }

// Encode implements Message.
func (m *ThreadGroupParentCommand) Encode(w *Writer) { w.ObjectID(m.Group) }

// Decode implements Message.
func (m *ThreadGroupParentCommand) Decode(r *Reader) error { m.Group = r.ObjectID(); return r.Err() }

// ThreadGroupChildrenCommand asks for a thread group's live threads
// and child groups (ThreadGroupReference.Children). Its reply is a
// ThreadGroupChildrenReply.
type ThreadGroupChildrenCommand struct{ Group ThreadGroupID }

// Command implements CommandMessage.
func (*ThreadGroupChildrenCommand) Command() Command { return CmdThreadGroupReferenceChildren }

// Encode implements Message.
func (m *ThreadGroupChildrenCommand) Encode(w *Writer) { w.ObjectID(m.Group) }

// Decode implements Message.
func (m *ThreadGroupChildrenCommand) Decode(r *Reader) error { m.Group = r.ObjectID(); return r.Err() }

// ObjectIDReply is a reply holding one object id (ThreadGroupReference.Parent,
// ThreadReference.ThreadGroup).
type ObjectIDReply struct{ ID ObjectID }

// Encode implements Message.
func (m *ObjectIDReply) Encode(w *Writer) { w.ObjectID(m.ID) }

// Decode implements Message.
func (m *ObjectIDReply) Decode(r *Reader) error { m.ID = r.ObjectID(); return r.Err() }

// ThreadGroupChildrenReply is the reply to ThreadGroupReference.Children:
// the group's live threads, then its child groups.
type ThreadGroupChildrenReply struct {
	Threads []ThreadID
	Groups  []ThreadGroupID
}

// Encode implements Message: each list as an ObjectIDsReply.
func (m *ThreadGroupChildrenReply) Encode(w *Writer) {
	(&ObjectIDsReply{IDs: m.Threads}).Encode(w)
	(&ObjectIDsReply{IDs: m.Groups}).Encode(w)
}

// Decode implements Message.
func (m *ThreadGroupChildrenReply) Decode(r *Reader) error {
	var threads, groups ObjectIDsReply
	_ = threads.Decode(r)
	_ = groups.Decode(r) // the reader keeps the first error
	m.Threads, m.Groups = threads.IDs, groups.IDs
	return r.Err()
}
