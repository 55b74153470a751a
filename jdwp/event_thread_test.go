package jdwp_test

import (
	"testing"

	"github.com/jdwpscache/scache/jdwp"
	"github.com/stretchr/testify/require"
)

func TestEventThreadAndLocation(t *testing.T) {
	loc := jdwp.Location{TypeTag: jdwp.TypeTagClass, Class: 2, Method: 3, Index: 4}
	for _, tc := range []struct {
		event        jdwp.Event
		thread       bool
		withLocation bool
	}{
		{&jdwp.ThreadEvent{EventKind: jdwp.EventThreadStart, Thread: 9}, true, false},
		{&jdwp.ClassPrepareEvent{Thread: 9}, true, false},
		{&jdwp.LocationEvent{EventKind: jdwp.EventBreakpoint, Thread: 9, Location: loc}, true, true},
		{&jdwp.MethodExitWithReturnValueEvent{Thread: 9, Location: loc}, true, true},
		{&jdwp.MonitorContendedEvent{EventKind: jdwp.EventMonitorContendedEnter, Thread: 9, Location: loc}, true, true},
		{&jdwp.MonitorWaitEvent{Thread: 9, Location: loc}, true, true},
		{&jdwp.MonitorWaitedEvent{Thread: 9, Location: loc}, true, true},
		{&jdwp.ExceptionEvent{Thread: 9, Location: loc}, true, true},
		{&jdwp.FieldAccessEvent{Thread: 9, Location: loc}, true, true},
		{&jdwp.FieldModificationEvent{Thread: 9, Location: loc}, true, true},
		{&jdwp.ClassUnloadEvent{}, false, false},
		{&jdwp.VMDeathEvent{}, false, false},
		{&jdwp.UnspecifiedEvent{EventKind: jdwp.EventFramePop}, false, false},
	} {
		thread, ok := jdwp.EventThread(tc.event)
		require.Equal(t, tc.thread, ok, "%T", tc.event)
		if ok {
			require.Equal(t, jdwp.ThreadID(9), thread, "%T", tc.event)
		}
		l, ok := jdwp.EventLocation(tc.event)
		require.Equal(t, tc.withLocation, ok, "%T", tc.event)
		if ok {
			require.Equal(t, loc, l, "%T", tc.event)
		}
	}
}
