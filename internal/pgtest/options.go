package pgtest

// Option configures a server started by Start.
type Option func(*config)

type config struct {
	fsync    bool
	settings []string
}

// WithFsync turns fsync on, so that what the server committed survives a
// crash of the machine, not only of the server's processes. Without it the
// server runs with fsync=off, which loses nothing when only its processes
// die (the kernel still writes what they wrote), and starts faster.
func WithFsync() Option {
	return func(c *config) { c.fsync = true }
}

// WithSetting passes a server setting, "name=value" (postgres -c), after
// the package's own, so it may override them: for example
// "synchronous_commit=off".
func WithSetting(setting string) Option {
	return func(c *config) { c.settings = append(c.settings, setting) }
}
