// Package readings keeps the most recent sensor readings of a weather station in
// memory, so that the display can show the last hour without touching the disk.
//
// The buffer has a fixed size: when it is full, a new reading replaces the oldest
// one. Nothing here is safe for use by several goroutines at once; the station's
// main loop owns the buffer.
package readings

import (
	"errors"
	"math"
	"time"
)

// DefaultSize holds one reading per minute for an hour.
const DefaultSize = 60

// ErrEmpty is returned when a reading is asked of an empty buffer.
var ErrEmpty = errors.New("readings: the buffer is empty")

// Reading is one measurement: when it was taken, the air temperature in degrees
// Celsius and the rainfall in millimetres since the previous reading.
type Reading struct {
	At          time.Time
	Temperature float64
	Rainfall    float64
}

// Buffer is a ring of readings; the zero value is not usable, call New.
type Buffer struct {
	items []Reading
	next  int // where the next reading goes
	count int // how many slots hold a reading
}

// New returns an empty buffer of the given size (DefaultSize when size < 1).
func New(size int) *Buffer {
	if size < 1 {
		size = DefaultSize
	}
	return &Buffer{items: make([]Reading, size)}
}

// Push stores a reading, replacing the oldest one when the buffer is full.
func (b *Buffer) Push(r Reading) {
	b.items[b.next] = r
	b.next = (b.next + 1) % len(b.items)
	if b.count < len(b.items) {
		b.count++
	}
}

// Latest returns the newest reading, or ErrEmpty.
func (b *Buffer) Latest() (Reading, error) {
	if b.count == 0 {
		return Reading{}, ErrEmpty
	}
	return b.items[(b.next-1+len(b.items))%len(b.items)], nil
}

// Len is the number of readings held.
func (b *Buffer) Len() int { return b.count }

// Summary describes the readings of the buffer for the station's hourly report.
type Summary struct {
	Count           int
	MinTemperature  float64
	MaxTemperature  float64
	MeanTemperature float64
	TotalRainfall   float64
	Gaps            int // readings more than two minutes after the one before
}

// Summarize walks the readings from the oldest to the newest and computes the
// hourly report: temperature extremes and mean, total rainfall, and how many
// gaps the station had (a reading more than two minutes after the previous one
// means the radio link dropped out). An empty buffer gives ErrEmpty.
func (b *Buffer) Summarize() (Summary, error) {
	if b.count == 0 {
		return Summary{}, ErrEmpty
	}
	s := Summary{Count: b.count, MinTemperature: math.Inf(1), MaxTemperature: math.Inf(-1)}
	oldest := (b.next - b.count + len(b.items)) % len(b.items)
	var previous time.Time
	sum := 0.0
	for i := 0; i < b.count; i++ {
		r := b.items[(oldest+i)%len(b.items)]
		s.MinTemperature = math.Min(s.MinTemperature, r.Temperature)
		s.MaxTemperature = math.Max(s.MaxTemperature, r.Temperature)
		sum += r.Temperature
		s.TotalRainfall += r.Rainfall
		if !previous.IsZero() && r.At.Sub(previous) > 2*time.Minute {
			s.Gaps++
		}
		previous = r.At
	}
	s.MeanTemperature = sum / float64(b.count)
	return s, nil
}
