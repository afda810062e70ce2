/**
 * Rules for provider tokens: the cloud and platform formats written out here (AWS, Azure, GitHub, GitLab, Slack,
 * Stripe, OpenAI, Anthropic, Google, npm, PyPI, Hugging Face, SendGrid), every entry of the provider table
 * (providers.ts) wrapped in token boundaries, and signed JSON Web Tokens. These are specific findings: a generic rule
 * overlapping one yields to it. In scan order.
 */
import type { SecretKind } from "./kinds.ts"
import { PROVIDER_RULES, type ProviderRule } from "./providers.ts"
import { preceding, type Rule, tokenAccepted } from "./rule.ts"
import { charClasses, isPlaceholder, shannonEntropy, unsignedJwt } from "./values.ts"

const providerRule = (r: ProviderRule): Rule => {
  const edge = r.edge ?? "A-Za-z0-9_"
  // Padding and separators may follow a token but may precede it too (`token=`, `/`), so they bound its end only.
  const before = edge.replace(/[=+/~.%:!]/g, "")
  return {
    kind: r.kind as SecretKind,
    pattern: new RegExp(`(?<![${before}])(?:${r.body})(?![${edge}])`, "g"),
    triggers: r.triggers,
    ...(r.at === undefined ? {} : { triggerAt: r.at }),
    accept:
      r.mixed === true
        ? (m) => tokenAccepted(m) && /[0-9]/.test(m[0]) && /[A-Za-z]/.test(m[0]) && shannonEntropy(m[0]) >= 3
        : tokenAccepted
  }
}

export const TOKEN_RULES: ReadonlyArray<Rule> = [
  {
    kind: "aws-access-key-id",
    pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16}(?![A-Za-z0-9])/g,
    triggers: ["AKIA", "ASIA", "ABIA", "ACCA", "A3T"],
    accept: tokenAccepted
  },
  {
    kind: "aws-secret-access-key",
    pattern:
      /(?<![A-Za-z0-9])(?:aws_?)?secret_?access_?key["'`]?[ \t]{0,4}(?:=>|:=|[:=])[ \t]{0,4}["'`]?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/gi,
    lowerTriggers: ["secret"],
    accept: (m) => !isPlaceholder(m[1]!) && charClasses(m[1]!) >= 3
  },
  {
    kind: "azure-storage-key",
    pattern: /(?<![A-Za-z0-9])(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{30,100}={0,2})/g,
    triggers: ["AccountKey=", "SharedAccessKey="],
    accept: (m) => !isPlaceholder(m[1]!)
  },
  {
    kind: "azure-sas-token",
    pattern: /[?&;]sig=([A-Za-z0-9%+/]{30,200})/g,
    triggers: ["sig="],
    accept: (m, text) => !isPlaceholder(m[1]!) && /[?&;]sv=\d{4}-\d{2}-\d{2}/.test(preceding(text, m.index, 600))
  },
  {
    kind: "github-token",
    pattern: /(?<![A-Za-z0-9_])(?:(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{50,255})(?![A-Za-z0-9_])/g,
    triggers: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    accept: tokenAccepted
  },
  {
    kind: "gitlab-token",
    pattern: /(?<![A-Za-z0-9_-])gl(?:pat|dt|rt|ptt|cbt|ft|imt|oas|soat|agent|ffct|wt)-[A-Za-z0-9_-]{20,200}(?![A-Za-z0-9_-])/g,
    triggers: ["glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glft-", "glimt-", "gloas-", "glsoat-", "glagent-", "glffct-", "glwt-"],
    accept: tokenAccepted
  },
  {
    kind: "slack-token",
    pattern: /(?<![A-Za-z0-9_-])xox(?:[baprs]|e(?:\.xox[bp])?)-[0-9]{1,15}-[A-Za-z0-9-]{10,250}(?![A-Za-z0-9_-])/g,
    triggers: ["xox"],
    accept: tokenAccepted
  },
  {
    kind: "slack-webhook",
    pattern: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9]{8,12}\/[A-Za-z0-9]{8,12}\/[A-Za-z0-9]{18,40}/g,
    triggers: ["hooks.slack.com"],
    accept: tokenAccepted
  },
  {
    kind: "stripe-live-key",
    pattern: /(?<![A-Za-z0-9_])(?:sk|rk)_live_[A-Za-z0-9]{20,250}(?![A-Za-z0-9_])/g,
    triggers: ["_live_"],
    accept: tokenAccepted
  },
  {
    kind: "anthropic-api-key",
    pattern: /(?<![A-Za-z0-9_-])sk-ant-[a-z]{2,10}[0-9]{2}-[A-Za-z0-9_-]{32,250}(?![A-Za-z0-9_-])/g,
    triggers: ["sk-ant-"],
    accept: tokenAccepted
  },
  {
    kind: "openai-api-key",
    pattern:
      /(?<![A-Za-z0-9_-])sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{40,250}|[A-Za-z0-9]{32,200})(?![A-Za-z0-9_-])/g,
    triggers: ["sk-"],
    accept: (m) => tokenAccepted(m) && charClasses(m[0].slice(3)) >= 2
  },
  {
    kind: "google-api-key",
    pattern: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g,
    triggers: ["AIza"],
    accept: tokenAccepted
  },
  {
    kind: "npm-token",
    pattern: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])/g,
    triggers: ["npm_"],
    accept: tokenAccepted
  },
  {
    kind: "pypi-token",
    pattern: /(?<![A-Za-z0-9_-])pypi-AgE[A-Za-z0-9_-]{50,500}(?![A-Za-z0-9_-])/g,
    triggers: ["pypi-AgE"],
    accept: tokenAccepted
  },
  {
    kind: "huggingface-token",
    pattern: /(?<![A-Za-z0-9_])(?:hf_|api_org_)[A-Za-z0-9]{30,40}(?![A-Za-z0-9_])/g,
    triggers: ["hf_", "api_org_"],
    accept: (m) => tokenAccepted(m) && /[a-z]/.test(m[0].slice(3)) && /[A-Z]/.test(m[0].slice(3))
  },
  {
    kind: "sendgrid-api-key",
    pattern: /(?<![A-Za-z0-9_-])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g,
    triggers: ["SG."],
    accept: tokenAccepted
  },
  ...PROVIDER_RULES.map(providerRule),
  {
    kind: "jwt",
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,2000}\.eyJ[A-Za-z0-9_-]{8,8000}\.[A-Za-z0-9_-]{0,2000}(?![A-Za-z0-9_-])/g,
    triggers: ["eyJ"],
    accept: (m) =>
      !m[0].endsWith(".") &&
      !unsignedJwt(m[0]) &&
      !isPlaceholder(m[0].slice(m[0].lastIndexOf(".") + 1)) &&
      !isPlaceholder(m[0].slice(0, 40))
  },
]
