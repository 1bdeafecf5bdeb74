package pglocker

import (
	"net"
	"net/url"
	"strconv"
	"strings"
)

// Endpoint implements driver.Endpointer: "postgres://host:port" of the
// server the pool connects to first, so that a RedLock refuses two clients
// of one server as members. The database is left out: two databases of
// one server share its process, its disk and its failures, so they are
// not independent members. "localhost" is written as the loopback
// address; a Unix socket directory is written escaped in place of the
// host.
func (b *Backend) Endpoint() string {
	c := b.pool.Config().ConnConfig
	host := c.Host
	if strings.EqualFold(host, "localhost") {
		host = "127.0.0.1"
	}
	if strings.HasPrefix(host, "/") {
		host = url.PathEscape(host)
	}
	return "postgres://" + net.JoinHostPort(host, strconv.Itoa(int(c.Port)))
}
