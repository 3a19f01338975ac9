// Preloaded (`node -r`) by startup.bench.mjs into every measured process, the bare one included:
// at exit it writes the process's own CPU time (user + system, all threads, microseconds) to
// stderr as one line `cpu-us <n>`. CPU time is the figure that survives a loaded machine; the wall
// time next to it is measured by the parent.
process.on('exit', () => {
  const u = process.cpuUsage();
  process.stderr.write(`cpu-us ${u.user + u.system}\n`);
});
