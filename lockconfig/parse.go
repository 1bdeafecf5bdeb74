package lockconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode"
)

// Parse reads a spec: an optional head, a mode and settings followed by a
// colon, then URLs separated by white space or commas, as in
//
//	redlock: redis://a:6379 redis://b:6379 redis://c:6379
//	redlock restart_guard=0s member_timeout=50ms: redis://a:6379 redis://b:6379 redis://c:6379
//
// The settings are Config's MemberTimeout (member_timeout) and RestartGuard
// (restart_guard). A spec without a head is Single. A spec that starts with
// "{" is a JSON object, read as ParseFile reads one, so that a spec takes
// every form a file does. Parse checks the result with Validate. Errors wrap
// locker.ErrInvalid and never contain a password.
func Parse(spec string) (Config, error) {
	var c Config
	rest := strings.TrimSpace(spec)
	if strings.HasPrefix(rest, "{") {
		return ParseFile([]byte(rest))
	}
	if head, after, ok := strings.Cut(rest, ":"); ok && !strings.HasPrefix(after, "//") {
		words := strings.Fields(head)
		if len(words) > 0 && isWord(words[0]) {
			c.Mode = Mode(strings.ToLower(words[0]))
			if err := c.setAll(words[1:]); err != nil {
				return Config{}, err
			}
			rest = after
		}
	}
	c.URLs = splitURLs(rest)
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// setAll applies "name=value" settings.
func (c *Config) setAll(settings []string) error {
	for _, kv := range settings {
		name, value, _ := strings.Cut(kv, "=")
		switch name {
		case "member_timeout":
			c.MemberTimeout = value
		case "restart_guard":
			c.RestartGuard = value
		default:
			return invalid("unknown setting %q (known: member_timeout, restart_guard)", name)
		}
	}
	return nil
}

// isWord reports whether s is a bare word, as a mode is and a URL is not.
func isWord(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// splitURLs splits s at white space, and at commas that a URL scheme
// follows, so that a comma inside a URL (in a password, say) stays in it.
func splitURLs(s string) []string {
	var urls []string
	for _, field := range strings.Fields(s) {
		start := 0
		for i := 0; i < len(field); i++ {
			if field[i] != ',' {
				continue
			}
			if next := field[i+1:]; next == "" || startsWithScheme(next) {
				if part := field[start:i]; part != "" {
					urls = append(urls, part)
				}
				start = i + 1
			}
		}
		if part := field[start:]; part != "" {
			urls = append(urls, part)
		}
	}
	return urls
}

// startsWithScheme reports whether s begins with "scheme://".
func startsWithScheme(s string) bool {
	scheme, _, ok := strings.Cut(s, "://")
	if !ok || scheme == "" {
		return false
	}
	for i, r := range scheme {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || !(r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return false
		}
	}
	return true
}

// ParseFile reads a configuration file's contents: JSON when it starts with
// "{", as in {"mode": "redlock", "urls": [...]}, and otherwise a spec as
// Parse reads it, in which lines starting with "#" (after white space) and
// text after a " #" are comments. Unknown JSON fields are errors.
func ParseFile(data []byte) (Config, error) {
	trimmed := bytes.TrimSpace(data)
	if bytes.HasPrefix(trimmed, []byte("{")) {
		var c Config
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			// The decoder's message quotes no values, only positions and
			// field names, so no password leaks through it.
			return Config{}, invalid("JSON configuration: %v", err)
		}
		c.Mode = Mode(strings.ToLower(string(c.Mode)))
		if dec.More() {
			return Config{}, invalid("JSON configuration: text after the object")
		}
		if err := c.Validate(); err != nil {
			return Config{}, err
		}
		return c, nil
	}
	var spec strings.Builder
	for line := range strings.Lines(string(data)) {
		spec.WriteString(stripComment(line))
		spec.WriteString("\n")
	}
	return Parse(spec.String())
}

// stripComment drops a "#" comment: one at the start of the line or after
// white space. A "#" inside a URL (a fragment) is kept.
func stripComment(line string) string {
	for i := 0; i < len(line); i++ {
		if line[i] == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') {
			return line[:i]
		}
	}
	return line
}

// Load reads the configuration file at path; see ParseFile for its forms.
func Load(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("lockconfig: %w", err)
	}
	c, err := ParseFile(data)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}
