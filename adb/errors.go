package adb

import (
	"errors"
	"fmt"
)

// Errors of the adb client. ServerError values wrap one of the sentinels
// when the server's message says which.
var (
	// ErrServerNotAvailable: nothing answers at the server's address.
	ErrServerNotAvailable = errors.New("adb: cannot connect to the adb server (start one with `adb start-server`, or set ANDROID_ADB_SERVER_PORT)")
	// ErrDeviceNotFound: no device has the serial asked for, or none is connected.
	ErrDeviceNotFound = errors.New("adb: device not found")
	// ErrProtocol: the server said something this client cannot read.
	ErrProtocol = errors.New("adb: protocol error")
	// ErrStreamClosed: the device refused or closed a service (an unknown pid for jdwp:).
	ErrStreamClosed = errors.New("adb: the device closed the stream")
)

// A ServerError is a FAIL reply from the adb server, with its message.
type ServerError struct {
	Request string
	Message string
	kind    error
}

// Error gives the request and the server's message.
func (e *ServerError) Error() string {
	return fmt.Sprintf("adb: %s: %s", e.Request, e.Message)
}

// Unwrap returns the sentinel the message corresponds to, if any.
func (e *ServerError) Unwrap() error { return e.kind }

func serverError(request, msg string) *ServerError {
	e := &ServerError{Request: request, Message: msg}
	switch {
	case containsAny(msg, "not found", "no devices", "no emulators"):
		e.kind = ErrDeviceNotFound
	case containsAny(msg, "closed"):
		e.kind = ErrStreamClosed
	}
	return e
}
