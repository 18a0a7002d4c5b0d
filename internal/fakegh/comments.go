package fakegh

import (
	"fmt"
	"net/http"
	"strconv"
)

// The issue and review comment endpoints, as the Action's sticky comment
// and review comments use them.

// page serves one page of cs with a Link header to the next.
func (s *Server) page(w http.ResponseWriter, r *http.Request, cs []*Comment) {
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 || per > 100 {
		per = 30
	}
	if per > s.PageSize {
		per = s.PageSize
	}
	p, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if p <= 0 {
		p = 1
	}
	lo, hi := (p-1)*per, p*per
	if lo > len(cs) {
		lo = len(cs)
	}
	if hi >= len(cs) {
		hi = len(cs)
	} else {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(p+1))
		q.Set("per_page", strconv.Itoa(per))
		w.Header().Set("Link", fmt.Sprintf(`<%s%s?%s>; rel="next"`, s.URL, r.URL.Path, q.Encode()))
	}
	out := make([]Comment, 0, hi-lo)
	for _, c := range cs[lo:hi] {
		out = append(out, *c)
	}
	s.json(w, http.StatusOK, out)
}

func (s *Server) listIssueComments(w http.ResponseWriter, r *http.Request) {
	n, ok := s.number(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	cs := append([]*Comment(nil), s.Issue[n]...)
	s.mu.Unlock()
	s.page(w, r, cs)
}

func (s *Server) login() string {
	if s.App != nil {
		return s.App.Slug + "[bot]"
	}
	if s.Login == "" {
		return "github-actions[bot]"
	}
	return s.Login
}

func (s *Server) createIssueComment(w http.ResponseWriter, r *http.Request) {
	n, ok := s.number(w, r)
	if !ok || s.forbidWrite(w) {
		return
	}
	var in struct {
		Body string `json:"body"`
	}
	if !s.body(w, r, &in) || s.tooLong(w, in.Body) {
		return
	}
	c := s.AddIssueComment(n, s.login(), in.Body)
	s.json(w, http.StatusCreated, c)
}

func (s *Server) editIssueComment(w http.ResponseWriter, r *http.Request) {
	if s.forbidWrite(w) {
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	var in struct {
		Body string `json:"body"`
	}
	if !s.body(w, r, &in) || s.tooLong(w, in.Body) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cs := range s.Issue {
		for _, c := range cs {
			if c.ID == id {
				if c.User.Login != s.login() {
					s.t.Errorf("fake GitHub: editing comment %d of %s as %s", id, c.User.Login, s.login())
				}
				c.Body = in.Body
				s.json(w, http.StatusOK, c)
				return
			}
		}
	}
	s.t.Errorf("fake GitHub: editing unknown comment %d", id)
	s.fail(w, http.StatusNotFound, "Not Found")
}

func (s *Server) listReviewComments(w http.ResponseWriter, r *http.Request) {
	n, ok := s.number(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	cs := append([]*Comment(nil), s.Reviewed[n]...)
	s.mu.Unlock()
	s.page(w, r, cs)
}

func (s *Server) createReview(w http.ResponseWriter, r *http.Request) {
	n, ok := s.number(w, r)
	if !ok || s.forbidWrite(w) {
		return
	}
	var in struct {
		CommitID string `json:"commit_id"`
		Body     string `json:"body"`
		Event    string `json:"event"`
		Comments []struct {
			Path      string `json:"path"`
			StartLine int    `json:"start_line"`
			Line      int    `json:"line"`
			StartSide string `json:"start_side"`
			Side      string `json:"side"`
			Body      string `json:"body"`
		} `json:"comments"`
	}
	if !s.body(w, r, &in) {
		return
	}
	if in.Event != "COMMENT" {
		s.t.Errorf("fake GitHub: review event %q, want COMMENT", in.Event)
	}
	if in.CommitID != s.PRs[n].HeadSHA {
		s.t.Errorf("fake GitHub: review on commit %q, want the head %q", in.CommitID, s.PRs[n].HeadSHA)
	}
	for _, c := range in.Comments {
		// A multi-line comment needs a start before its line, on the
		// same side; a single-line one has neither start field.
		badStart := c.StartLine != 0 && (c.StartLine >= c.Line || c.StartSide != "RIGHT") ||
			c.StartLine == 0 && c.StartSide != ""
		if c.Path == "" || c.Line <= 0 || c.Side != "RIGHT" || badStart || s.tooLong(w, c.Body) {
			s.t.Errorf("fake GitHub: bad review comment %+v", c)
			s.fail(w, http.StatusUnprocessableEntity, "Validation Failed")
			return
		}
	}
	s.mu.Lock()
	s.Reviews[n]++
	s.mu.Unlock()
	for _, c := range in.Comments {
		s.mu.Lock()
		rc := s.newComment(s.login(), c.Body)
		rc.Path, rc.Line, rc.Side, rc.CommitID = c.Path, c.Line, c.Side, in.CommitID
		rc.StartLine, rc.StartSide = c.StartLine, c.StartSide
		s.Reviewed[n] = append(s.Reviewed[n], rc)
		s.mu.Unlock()
	}
	s.json(w, http.StatusOK, map[string]any{"id": 1, "state": "COMMENTED"})
}

func (s *Server) deleteReviewComment(w http.ResponseWriter, r *http.Request) {
	if s.forbidWrite(w) {
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	for n, cs := range s.Reviewed {
		for i, c := range cs {
			if c.ID == id {
				if c.User.Login != s.login() {
					s.t.Errorf("fake GitHub: deleting comment %d of %s", id, c.User.Login)
				}
				s.Reviewed[n] = append(cs[:i:i], cs[i+1:]...)
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
	}
	s.t.Errorf("fake GitHub: deleting unknown review comment %d", id)
	s.fail(w, http.StatusNotFound, "Not Found")
}

func (s *Server) deleteIssueComment(w http.ResponseWriter, r *http.Request) {
	if s.forbidWrite(w) {
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	for n, cs := range s.Issue {
		for i, c := range cs {
			if c.ID == id {
				if c.User.Login != s.login() {
					s.t.Errorf("fake GitHub: deleting comment %d of %s", id, c.User.Login)
				}
				s.Issue[n] = append(cs[:i:i], cs[i+1:]...)
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
	}
	s.t.Errorf("fake GitHub: deleting unknown comment %d", id)
	s.fail(w, http.StatusNotFound, "Not Found")
}
