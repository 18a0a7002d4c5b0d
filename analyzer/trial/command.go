package trial

import (
	"context"
	"path/filepath"
)

// command runs the user's build and test commands by bash in worktree wt,
// where the variant has been written. Without a build command, Build
// cannot tell a compile failure from a test failure and reports Pass with a
// note in Message.
func (r *Runner) command(ctx context.Context, wt string, modFiles, build bool) (Result, error) {
	cwd := filepath.Join(wt, filepath.FromSlash(r.prefix))
	env := r.env(modFiles)
	var res Result
	if r.cfg.BuildCommand != "" {
		out, err := execute(ctx, r.cfg.Timeout, cwd, env, "bash", "-c", r.cfg.BuildCommand)
		res.Duration = out.duration
		res.Output = tail(string(out.stdout)+string(out.stderr), maxOutput)
		switch {
		case err != nil:
			return Result{}, err
		case out.timedOut:
			res.Outcome = Timeout
			return res, nil
		case out.exitCode != 0:
			res.Outcome = BuildError
			res.Message = tail(string(out.stdout)+string(out.stderr), maxMessage)
			return res, nil
		}
	}
	if build {
		res.Outcome = Pass
		if r.cfg.BuildCommand == "" {
			res.Message = "no build command: assumed to compile"
		}
		return res, nil
	}
	out, err := r.executeTest(ctx, r.cfg.Timeout, cwd, env, "bash", "-c", r.cfg.TestCommand)
	if err != nil {
		return Result{}, err
	}
	res.Duration += out.duration
	res.Output = tail(res.Output+string(out.stdout)+string(out.stderr), maxOutput)
	switch {
	case out.timedOut:
		res.Outcome = Timeout
	case out.overMemory != "":
		res.Outcome, res.Message, res.OverMemory = Crash, out.overMemory, true
	case out.exitCode == 0:
		res.Outcome = Pass
	case out.exitCode < 0 || out.exitCode > 128:
		// Killed by a signal (directly, or as reported by the shell).
		res.Outcome = Crash
		res.Message = tail(string(out.stderr), maxMessage)
	default:
		res.Outcome = Fail
		res.Message = tail(string(out.stdout)+string(out.stderr), maxMessage)
	}
	return res, nil
}
