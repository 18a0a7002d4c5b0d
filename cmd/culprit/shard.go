package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/culprit-dev/culprit/internal/shard"
)

// shardCmd runs one shard's slice of a round on the checkout it is in:
// each request's variant is applied to a worktree of head in turn, the
// test run, and the outcomes written (internal/shard).
func shardCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("shard", flag.ContinueOnError)
	roundPath := fs.String("round", "", "the round file (JSON) to run a slice of")
	out := fs.String("out", "", "where to write the outcomes (JSON)")
	repo := fs.String("repo", ".", "the checkout of the round's head commit")
	i := fs.Int("shard", 0, "which slice of the round to run, from 0")
	k := fs.Int("shards", 1, "how many slices the round is cut into")
	if err := parseFlags(fs, "shard --round FILE --out FILE [--shard I --shards N] [--repo DIR]\n\nRuns one slice of a round of trials, as a shard of the trials workflow does.", args, stdout, stderr); err != nil {
		return err
	}
	if *roundPath == "" || *out == "" || *k < 1 || *i < 0 || *i >= *k {
		fmt.Fprintln(stderr, "culprit shard: --round and --out are required, and 0 <= --shard < --shards")
		return errUsage
	}
	f, err := os.Open(*roundPath)
	if err != nil {
		return err
	}
	rd, err := shard.ReadRound(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", *roundPath, err)
	}
	res, err := shard.Run(ctx, *repo, rd, *i, *k)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(*out, append(data, '\n'), 0o644)
}
