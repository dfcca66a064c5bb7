// Run a Node.js Pulumi project through the real `pulumi` CLI, its program served in this process.
//
//   node nodejs_project.js up|preview|refresh|destroy|outputs DIR --program bin/index.js
//        [--stack S] [--config KEY=VALUE ...] [--events FILE]
//
// The Go language host pulumi-language-nodejs is not served by the module proxy, so a Node.js
// project runs the way the Automation API runs an inline program: the CLI is started with
// `--client` and talks to the language server of the project's own @pulumi/pulumi (from npm),
// which runs the compiled program (`--program`, relative to DIR) in the project directory, with
// its Pulumi.yaml and Pulumi.<stack>.yaml. Engine, plan, providers and plugins are the real ones.
// The automation module is resolved from DIR, so it is the very @pulumi/pulumi instance the
// program imports (a second copy would hold a second, empty runtime state).
//
// Each engine event is written as one JSON line to --events, in the shape localcluster/project.py
// writes for Python projects; the last line on stdout is the result as JSON.
"use strict";

const fs = require("fs");
const path = require("path");

const OPS = ["up", "preview", "refresh", "destroy", "outputs"];

function parse(argv) {
    const args = { op: argv[0], project: argv[1], stack: "local", config: {}, events: null, program: null };
    if (!OPS.includes(args.op) || !args.project) {
        throw new Error(`usage: nodejs_project.js ${OPS.join("|")} DIR --program FILE [--stack S] [--config K=V] [--events F]`);
    }
    for (let i = 2; i < argv.length; i += 2) {
        const [flag, value] = [argv[i], argv[i + 1]];
        if (value === undefined) throw new Error(`${flag} needs a value`);
        if (flag === "--stack") args.stack = value;
        else if (flag === "--program") args.program = value;
        else if (flag === "--events") args.events = value;
        else if (flag === "--config") {
            const at = value.indexOf("=");
            if (at < 1) throw new Error(`--config ${value}: expected KEY=VALUE`);
            args.config[value.slice(0, at)] = value.slice(at + 1);
        } else throw new Error(`unknown option ${flag}`);
    }
    if (!args.program) throw new Error("--program FILE is required");
    return args;
}

function step(m) {
    const detailed = {};
    for (const [key, d] of Object.entries(m.detailedDiff || {})) detailed[key] = d.kind;
    return { op: m.op, urn: m.urn, type: m.type, diffs: m.diffs || [], keys: m.keys || [], detailed_diff: detailed };
}

function eventJson(e) {
    const out = { t: Date.now() / 1000, sequence: e.sequence };
    if (e.resourcePreEvent) out.pre = step(e.resourcePreEvent.metadata);
    if (e.resOutputsEvent) out.outputs = step(e.resOutputsEvent.metadata);
    if (e.resOpFailedEvent) out.failed = step(e.resOpFailedEvent.metadata);
    if (e.diagnosticEvent) {
        const d = e.diagnosticEvent;
        out.diagnostic = { severity: d.severity, message: d.message, urn: d.urn || "", ephemeral: !!d.ephemeral };
    }
    if (e.summaryEvent) out.summary = e.summaryEvent.resourceChanges || {};
    return out;
}

function outputs(values) {
    const out = {};
    for (const [key, v] of Object.entries(values || {})) out[key] = v.secret ? "[secret]" : v.value;
    return out;
}

async function run(args, auto) {
    const project = path.resolve(args.project);
    const main = path.resolve(project, args.program);
    const program = async () => ({ ...require(main) });
    const stack = await auto.LocalWorkspace.createOrSelectStack(
        { stackName: args.stack, projectName: "", program }, { workDir: project });
    const config = Object.fromEntries(Object.entries(args.config).map(([k, v]) => [k, { value: v }]));
    if (Object.keys(config).length) await stack.setAllConfig(config);

    const events = args.events ? fs.openSync(args.events, "a") : null;
    const common = {
        onOutput: (line) => process.stderr.write(line),
        onEvent: (e) => { if (events !== null) fs.writeSync(events, JSON.stringify(eventJson(e)) + "\n"); },
    };
    try {
        if (args.op === "up") {
            const r = await stack.up(common);
            return { summary: r.summary.resourceChanges, outputs: outputs(r.outputs) };
        }
        if (args.op === "preview") return { summary: (await stack.preview(common)).changeSummary };
        if (args.op === "refresh") return { summary: (await stack.refresh(common)).summary.resourceChanges };
        if (args.op === "destroy") return { summary: (await stack.destroy(common)).summary.resourceChanges };
        return { outputs: outputs(await stack.outputs()) };
    } finally {
        if (events !== null) fs.closeSync(events);
    }
}

async function main() {
    let args;
    try {
        args = parse(process.argv.slice(2));
    } catch (e) {
        process.stderr.write(`${e.message}\n`);
        return 2;
    }
    const project = path.resolve(args.project);
    process.chdir(project);
    const auto = require(require.resolve("@pulumi/pulumi/automation", { paths: [project] }));
    try {
        process.stdout.write(JSON.stringify(await run(args, auto)) + "\n");
        return 0;
    } catch (e) {
        if (!(e instanceof auto.CommandError)) throw e;
        // The engine's output was streamed as it came; what is left is what it wrote to stderr.
        const detail = String(e.commandResult ? e.commandResult.stderr : e.message).trim();
        process.stderr.write(detail ? `${detail}\npulumi ${args.op} failed\n` : `pulumi ${args.op} failed\n`);
        return 1;
    }
}

main().then((code) => process.exit(code), (e) => {
    process.stderr.write(`${e && e.stack ? e.stack : e}\n`);
    process.exit(1);
});
