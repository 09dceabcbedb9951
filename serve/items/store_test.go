package items

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

func origin() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC) }

func TestNewItemJSON(t *testing.T) {
	t.Parallel()
	it := newItem("7", `pen "blue"`, origin())
	want := `{"id":"7","name":"pen \"blue\"","timestamp":"2026-01-02T03:04:05.000000006Z"`
	if got := string(it.json); got != want {
		t.Errorf("newItem JSON = %s; want %s", got, want)
	}
	if got, want := string(payloadSuffix(0)), "}"; got != want {
		t.Errorf("payloadSuffix(0) = %s; want %s", got, want)
	}
	if got, want := string(payloadSuffix(5)), `,"payload":"abcde"}`; got != want {
		t.Errorf("payloadSuffix(5) = %s; want %s", got, want)
	}
}

func TestStoreConcurrent(t *testing.T) {
	t.Parallel()
	s := newStore()
	const workers, per = 8, 500
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i++ {
				id := fmt.Sprintf("w%d-%d", w, i)
				s.put(newItem(id, "n", origin()))
				if it, ok := s.get(id); !ok || it.id != id {
					t.Errorf("get(%q) right after put = %v, %v; want the item", id, it, ok)
					return
				}
				s.get(fmt.Sprintf("w%d-%d", (w+1)%workers, i)) // read what others write
			}
		}()
	}
	wg.Wait()
	if got, want := s.len(), workers*per; got != want {
		t.Errorf("len() = %d; want %d", got, want)
	}
	s.put(newItem("w0-0", "replaced", origin()))
	if it, _ := s.get("w0-0"); it.name != "replaced" || s.len() != workers*per {
		t.Errorf("after replacing w0-0: name %q, len %d; want \"replaced\", %d", it.name, s.len(), workers*per)
	}
}

func BenchmarkStoreGet(b *testing.B) {
	b.ReportAllocs()
	s := newStore()
	for i := 0; i < 1000; i++ {
		s.put(newItem(fmt.Sprint(i), "n", origin()))
	}
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			s.get("500")
		}
	})
}
