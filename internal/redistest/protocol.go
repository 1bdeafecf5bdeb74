package redistest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// ReplyError is an error reply from the server ("-ERR ...").
type ReplyError string

// Error returns the server's message, without the leading '-'.
func (e ReplyError) Error() string { return string(e) }

// doTimeout bounds one Do call, connection included.
const doTimeout = 5 * time.Second

// Do sends one command on a new connection and returns the reply: a string
// for simple and bulk strings, an int64 for integers, a []any for arrays,
// nil for a null reply; an error reply is returned as a ReplyError. It
// gives up after five seconds (a paused server times out).
func (s *Server) Do(args ...string) (any, error) {
	return do(s.Addr(), args...)
}

func do(addr string, args ...string) (any, error) {
	replies, err := doAll(addr, args)
	if err != nil {
		return nil, err
	}
	return replies[0], nil
}

// doAll sends commands on one connection, as WAIT needs, and returns their
// replies; the first error reply ends it.
func doAll(addr string, cmds ...[]string) ([]any, error) {
	c, err := net.DialTimeout("tcp", addr, doTimeout)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(doTimeout)); err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, args := range cmds {
		fmt.Fprintf(&b, "*%d\r\n", len(args))
		for _, a := range args {
			fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
		}
	}
	if _, err := io.WriteString(c, b.String()); err != nil {
		return nil, err
	}
	r := bufio.NewReader(c)
	replies := make([]any, len(cmds))
	for i := range cmds {
		reply, err := readReply(r)
		if err != nil {
			return nil, err
		}
		if e, ok := reply.(ReplyError); ok {
			return nil, e
		}
		replies[i] = reply
	}
	return replies, nil
}

func readReply(r *bufio.Reader) (any, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return nil, errors.New("empty reply line")
	}
	body := line[1:]
	switch line[0] {
	case '+':
		return body, nil
	case '-':
		return ReplyError(body), nil
	case ':':
		return strconv.ParseInt(body, 10, 64)
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return nil, err
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return nil, err
		}
		items := make([]any, n)
		for i := range items {
			if items[i], err = readReply(r); err != nil {
				return nil, err
			}
		}
		return items, nil
	default:
		return nil, fmt.Errorf("unexpected reply %q", line)
	}
}
