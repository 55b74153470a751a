package ddm

// NewRequest returns an empty message for a chunk a tool sends the VM, or nil
// for a type this package does not know.
func NewRequest(t Type) Message {
	switch t {
	case TypeHELO:
		return &HelloRequest{}
	case TypeTHEN:
		return &ThreadNotify{}
	case TypeTHST:
		return &ThreadStatusInterval{}
	case TypeSTKL:
		return &StackRequest{}
	case TypeHPIF:
		return &HeapInfoRequest{}
	case TypeHPSG:
		return &HeapSegmentsRequest{}
	case TypeNHSG:
		return &HeapSegmentsRequest{Native: true}
	case TypeHPDU:
		return &HeapDumpRequest{}
	case TypeREAE:
		return &Result{Type: t}
	case TypeMPRS:
		return &MethodTraceStart{}
	case TypeMPSS:
		return &StreamedTraceStart{}
	case TypeSPSS:
		return &StreamedTraceStart{Sampling: true}
	case TypeEXIT:
		return &Exit{}
	case TypeFEAT, TypeDBGD, TypeHPGC, TypeHPDS, TypeSPSE, TypeMPSE, TypeMPRE, TypeMPRQ, TypeREAQ, TypeREAL, TypeNHGT:
		return &Empty{Type: t}
	}
	return nil
}

// NewFromVM returns an empty message for a chunk the VM sends (a reply or an
// unsolicited chunk), or nil for a type this package does not know.
func NewFromVM(t Type) Message {
	switch t {
	case TypeHELO:
		return &Hello{}
	case TypeFEAT:
		return &Features{}
	case TypeWAIT:
		return &Wait{}
	case TypeAPNM:
		return &AppName{}
	case TypeSTAG:
		return &Stage{}
	case TypeFAIL:
		return &Fail{}
	case TypeTHCR:
		return &ThreadCreated{}
	case TypeTHDE:
		return &ThreadDied{}
	case TypeTHNM:
		return &ThreadRenamed{}
	case TypeTHST:
		return &ThreadStatus{}
	case TypeSTKL:
		return &Stack{}
	case TypeHPIF:
		return &HeapInfo{}
	case TypeHPST, TypeHPEN, TypeNHST, TypeNHEN:
		return &HeapMark{Type: t}
	case TypeHPSG, TypeHPSO, TypeNHSG:
		return &HeapSegment{Type: t}
	case TypeHPDU, TypeMPRE, TypeREAQ, TypeMPRQ:
		return &Result{Type: t}
	case TypeHPDS, TypeMPSE:
		return &Raw{Type: t}
	case TypeREAL:
		return &RecentAllocations{}
	case TypeNHGT:
		return &NativeHeap{}
	}
	return nil
}
