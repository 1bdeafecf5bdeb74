package locker

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// A holder label says who holds a lock, for people: "which process has
// it?". It travels in the owner identity, after labelSep, so that every
// store keeps it with the hold and Inspect returns it without a change to
// any backend or combinator: the owner identity of a Mutex is its random
// part, labelSep, and the label. The random part alone makes the identity
// unguessable; the label adds nothing to it and is not secret.
const labelSep = "|"

// maxLabelLen bounds a label, in bytes.
const maxLabelLen = 64

// defaultLabel is the label of Mutexes given none: the host name and the
// process id, as "host:pid".
var defaultLabel = sync.OnceValue(func() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown-host"
	}
	label := host + ":" + strconv.Itoa(os.Getpid())
	if len(label) > maxLabelLen {
		label = label[len(label)-maxLabelLen:]
	}
	return label
})

// WithLabel sets the label stored with the Mutex's holds, which Inspect
// reports as State.Label and `distlock status` prints: at most 64 bytes of
// printable text without "|". The default is the host name and the process
// id ("host:pid"). A Mutex made WithOwner has no label unless WithLabel is
// given too; its identity is then the owner, "|" and the label, so Mutexes
// that nest through a shared owner must agree on the label.
func WithLabel(label string) MutexOption {
	return func(m *Mutex) error {
		if err := checkLabel(label); err != nil {
			return err
		}
		m.label, m.labelSet = label, true
		return nil
	}
}

func checkLabel(label string) error {
	switch {
	case label == "":
		return invalid("empty label")
	case len(label) > maxLabelLen:
		return invalid(fmt.Sprintf("label of %d bytes, longer than %d", len(label), maxLabelLen))
	case strings.Contains(label, labelSep):
		return invalid(fmt.Sprintf("label contains %q", labelSep))
	case strings.IndexFunc(label, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0:
		return invalid("label with a character that is not printable")
	}
	return nil
}

// labelled returns owner with label appended.
func labelled(owner, label string) string {
	return owner + labelSep + label
}

// labelOf returns the label in an owner identity, or "" when it has none.
func labelOf(owner string) string {
	i := strings.LastIndex(owner, labelSep)
	if i < 0 {
		return ""
	}
	return owner[i+len(labelSep):]
}
