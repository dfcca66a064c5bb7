// The aggregated vLLM graph (graph.yaml) from TypeScript, through the `dynamo` provider plugin.
// The SDK under sdks/dynamo is generated from the plugin's schema: see README.md.
import * as fs from "fs";
import * as path from "path";

import * as pulumi from "@pulumi/pulumi";
import * as k8s from "@pulumi/kubernetes";
import * as dynamo from "@pulumi/dynamo";

const config = new pulumi.Config();
const namespace = config.get("namespace") ?? "dynamo";

const ns = new k8s.core.v1.Namespace("namespace", { metadata: { name: namespace } });

const graph = new dynamo.DynamoGraphDeployment("vllm-agg", {
    spec: fs.readFileSync(path.join(__dirname, "graph.yaml"), "utf8"), // an object or a path work too
    namespace,
    readiness: { timeout: "45m" },
}, { dependsOn: [ns] });

export const frontendUrl = graph.frontendUrl;
export const totalGpus = graph.totalGpus;
export const state = graph.state;
