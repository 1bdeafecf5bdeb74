package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// printMetrics prints each data point the reader holds, one a line, sorted:
// a counter's value, or a histogram's count of measurements.
func printMetrics(ctx context.Context, w io.Writer, reader *sdkmetric.ManualReader) error {
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		return err
	}
	var lines []string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					lines = append(lines, fmt.Sprintf("%s%s = %d %s", m.Name, attrs(p.Attributes), p.Value, m.Unit))
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					lines = append(lines, fmt.Sprintf("%s%s: %d measured, in %s", m.Name, attrs(p.Attributes), p.Count, m.Unit))
				}
			}
		}
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	return nil
}

// printSpans prints the spans in the order they ended, children indented
// under their parents.
func printSpans(w io.Writer, spans tracetest.SpanStubs) {
	names := make(map[string]string)
	for _, s := range spans {
		names[s.SpanContext.SpanID().String()] = s.Name
	}
	for _, s := range spans {
		line := s.Name
		if parent, ok := names[s.Parent.SpanID().String()]; ok && s.Parent.IsValid() {
			line = "  " + line + " (in " + parent + ")"
		}
		if len(s.Links) > 0 {
			line += " (linked to " + names[s.Links[0].SpanContext.SpanID().String()] + ")"
		}
		line += " " + attrs(attribute.NewSet(s.Attributes...))
		if s.Status.Description != "" {
			line += fmt.Sprintf(" status=%s %q", s.Status.Code, s.Status.Description)
		}
		fmt.Fprintln(w, line)
	}
}

// attrs formats a set of attributes as {k=v,...}, in key order.
func attrs(s attribute.Set) string {
	if s.Len() == 0 {
		return ""
	}
	var kvs []string
	for _, kv := range s.ToSlice() {
		kvs = append(kvs, string(kv.Key)+"="+kv.Value.String())
	}
	return "{" + strings.Join(kvs, ",") + "}"
}
