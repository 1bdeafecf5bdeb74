package locker

import (
	"context"
	"log/slog"
)

// Log records. A Telemetry with a logger logs what a program should hear
// of without asking: a lease lost, a renewal failing, a wait riding
// through store failures, an acquisition the stores could not decide (a
// combinator's message names the members it could not count and why)
// (Warn), a cleanup left to the background (Info).
// Every record names the lock, cut as errors cut it; none carries an owner
// identity, and store errors never carry a password.

// errAttr is err as a log attribute.
func errAttr(err error) slog.Attr { return slog.String("error", err.Error()) }

// warn logs msg at Warn with the lock's name and attrs.
func (mt *mutexTelemetry) warn(ctx context.Context, msg string, attrs ...slog.Attr) {
	mt.log(ctx, slog.LevelWarn, msg, attrs...)
}

func (mt *mutexTelemetry) log(ctx context.Context, level slog.Level, msg string, attrs ...slog.Attr) {
	if mt.logger == nil {
		return
	}
	mt.logger.LogAttrs(ctx, level, msg, append([]slog.Attr{slog.String("lock", mt.name)}, attrs...)...)
}

// backgroundCleanup reports a call whose cleanup goes on in the
// background: the store did not answer in time.
func (mt *mutexTelemetry) backgroundCleanup(c cleanup) {
	if mt == nil {
		return
	}
	mt.log(context.Background(), slog.LevelInfo, "distlock: the store did not answer in time; releasing in the background",
		slog.Int("holds", c.holds), slog.Bool("queue", c.queue))
}
