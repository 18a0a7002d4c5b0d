package fakegh

import (
	"archive/zip"
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Run, when set, runs every accepted workflow dispatch, as GitHub's
// runners would: title is the run's name (its run-name, as the workflow
// computes it from the inputs), and work, called once the run leaves the
// queue, does the jobs and returns the artifacts they uploaded, by
// artifact name, each as files by name. The run is listed (queued) after
// QueueLatency and completed when work returns.
type Run func(d Dispatch) (title string, work func() map[string]map[string][]byte)

// workflowRun is a run the fake holds.
type workflowRun struct {
	id        int64
	workflow  string
	title     string
	listed    time.Time
	status    string // queued, in_progress, completed
	artifacts []artifact
}

type artifact struct {
	id   int64
	name string
	zip  []byte
}

// runs holds the fake's workflow runs and the goroutines doing them.
type runs struct {
	list []*workflowRun
	wg   sync.WaitGroup
}

// routeRuns serves the Actions endpoints that find a dispatched run,
// follow it and fetch its artifacts.
func (s *Server) routeRuns(mux *http.ServeMux, repoPath string) {
	mux.HandleFunc("GET "+repoPath+"/actions/workflows/{file}/runs", s.listRuns)
	mux.HandleFunc("GET "+repoPath+"/actions/runs/{id}", s.getRun)
	mux.HandleFunc("GET "+repoPath+"/actions/runs/{id}/artifacts", s.listArtifacts)
	mux.HandleFunc("GET "+repoPath+"/actions/artifacts/{id}/zip", s.downloadArtifact)
}

// startRun starts the run of an accepted dispatch when Run is set.
func (s *Server) startRun(d Dispatch) {
	if s.Run == nil {
		return
	}
	title, work := s.Run(d)
	s.mu.Lock()
	s.nextID++
	wr := &workflowRun{id: s.nextID, workflow: d.Workflow, title: title, listed: time.Now().Add(s.QueueLatency), status: "queued"}
	s.runs.list = append(s.runs.list, wr)
	s.mu.Unlock()
	s.runs.wg.Go(func() {
		time.Sleep(s.QueueLatency)
		s.mu.Lock()
		wr.status = "in_progress"
		s.mu.Unlock()
		arts := work()
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, name := range slicesSorted(arts) {
			s.nextID++
			wr.artifacts = append(wr.artifacts, artifact{id: s.nextID, name: name, zip: zipOf(s, arts[name])})
		}
		wr.status = "completed"
	})
}

func (s *Server) runJSON(wr *workflowRun) map[string]any {
	conclusion := any(nil)
	if wr.status == "completed" {
		conclusion = "success"
	}
	return map[string]any{"id": wr.id, "name": "culprit trials", "display_title": wr.title, "status": wr.status,
		"conclusion": conclusion, "event": "workflow_dispatch", "path": ".github/workflows/" + wr.workflow}
}

func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) {
	if ev := r.URL.Query().Get("event"); ev != "" && ev != "workflow_dispatch" {
		s.t.Errorf("fake GitHub: runs of event %q", ev)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []map[string]any{}
	// Newest first, as GitHub lists them.
	for _, wr := range slices.Backward(s.runs.list) {
		if wr.workflow == r.PathValue("file") && !time.Now().Before(wr.listed) {
			out = append(out, s.runJSON(wr))
		}
	}
	s.json(w, http.StatusOK, map[string]any{"total_count": len(out), "workflow_runs": out})
}

// run finds the run named by the path's id, under s.mu.
func (s *Server) run(w http.ResponseWriter, r *http.Request) *workflowRun {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	for _, wr := range s.runs.list {
		if err == nil && wr.id == id && !time.Now().Before(wr.listed) {
			return wr
		}
	}
	s.t.Errorf("fake GitHub: no run %s", r.PathValue("id"))
	s.fail(w, http.StatusNotFound, "Not Found")
	return nil
}

func (s *Server) getRun(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if wr := s.run(w, r); wr != nil {
		s.json(w, http.StatusOK, s.runJSON(wr))
	}
}

func (s *Server) listArtifacts(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	wr := s.run(w, r)
	if wr == nil {
		return
	}
	out := []map[string]any{}
	for _, a := range wr.artifacts {
		out = append(out, map[string]any{"id": a.id, "name": a.name, "size_in_bytes": len(a.zip), "expired": false,
			"archive_download_url": fmt.Sprintf("%s%s/repos/%s/%s/actions/artifacts/%d/zip", s.URL, BasePath, s.Owner, s.Repo, a.id)})
	}
	s.json(w, http.StatusOK, map[string]any{"total_count": len(out), "artifacts": out})
}

// downloadArtifact answers as GitHub does: a redirect to a signed URL of
// the archive, which takes no token.
func (s *Server) downloadArtifact(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, wr := range s.runs.list {
		for _, a := range wr.artifacts {
			if strconv.FormatInt(a.id, 10) == r.PathValue("id") {
				http.Redirect(w, r, fmt.Sprintf("%s/_blobs/%d.zip?sig=x", s.URL, a.id), http.StatusFound)
				return
			}
		}
	}
	s.t.Errorf("fake GitHub: no artifact %s", r.PathValue("id"))
	s.fail(w, http.StatusNotFound, "Not Found")
}

// blobs serves the signed archive URLs outside the API: a request there
// must carry no token, which would leak to the storage service.
func (s *Server) blobs(api http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutPrefix(r.URL.Path, "/_blobs/")
		if !ok {
			api.ServeHTTP(w, r)
			return
		}
		if r.Header.Get("Authorization") != "" {
			s.t.Errorf("fake GitHub: the token was sent to the artifact storage")
		}
		s.mu.Lock()
		s.calls["GET /_blobs"]++
		var data []byte
		for _, wr := range s.runs.list {
			for _, a := range wr.artifacts {
				if strconv.FormatInt(a.id, 10)+".zip" == name {
					data = a.zip
				}
			}
		}
		s.mu.Unlock()
		if data == nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/zip")
		w.Write(data)
	})
}

func zipOf(s *Server, files map[string][]byte) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, name := range slicesSorted(files) {
		f, err := zw.Create(name)
		if err == nil {
			_, err = f.Write(files[name])
		}
		if err != nil {
			s.t.Errorf("fake GitHub: zipping %s: %v", name, err)
		}
	}
	if err := zw.Close(); err != nil {
		s.t.Errorf("fake GitHub: zipping: %v", err)
	}
	return b.Bytes()
}

func slicesSorted[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
