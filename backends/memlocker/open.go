package memlocker

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/distlock/distlock/driver"
)

// Scheme is the URL scheme this package registers with driver.Register.
const Scheme = "mem"

func init() {
	driver.Register(Scheme, openURL)
}

// named holds the stores that mem:// URLs name, for the life of the process.
var named = struct {
	sync.Mutex
	stores map[string]*Store
}{stores: make(map[string]*Store)}

// namedStore returns the process-wide store called name, creating it on
// first use.
func namedStore(name string) *Store {
	named.Lock()
	defer named.Unlock()
	s, ok := named.stores[name]
	if !ok {
		s = NewStore()
		named.stores[name] = s
	}
	return s
}

// openURL opens "mem://NAME": a new Client of the store called NAME in this
// process. Every Open of the same NAME reaches the same store, so Mutexes
// opened from one URL contend; different names are independent stores. The
// URL takes no user, port, path, query or fragment.
func openURL(_ context.Context, u *url.URL) (driver.Backend, error) {
	bad := ""
	switch {
	case u.Opaque != "":
		bad = "want mem://NAME"
	case u.User != nil:
		bad = "mem URLs take no user or password"
	case u.Port() != "":
		bad = "mem URLs take no port"
	case u.Path != "" && u.Path != "/":
		bad = fmt.Sprintf("mem URLs take no path (got %q)", u.Path)
	case u.RawQuery != "" || u.ForceQuery:
		bad = fmt.Sprintf("unknown query parameter(s) %s: mem URLs take none", queryNames(u))
	case u.Fragment != "":
		bad = "mem URLs take no fragment"
	}
	if bad != "" {
		return nil, fmt.Errorf("%w: %s", driver.ErrInvalid, bad)
	}
	return namedStore(u.Hostname()).Client(), nil
}

// queryNames lists the URL's query parameter names, not their values, which
// may be secrets.
func queryNames(u *url.URL) string {
	q := u.Query()
	names := make([]string, 0, len(q))
	for k := range q {
		names = append(names, strconv.Quote(k))
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
