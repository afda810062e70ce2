import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./pm-chunk-chunk-XT7UA3KU.js";import{o as i}from"./pm-chunk-chunk-QEQYTJYH.js";var s=32*1024,d="MEMORY.md",m=`---
name: short-topic-name
description: one line saying when this memory matters
metadata:
  type: project
---`,u=(t,n)=>{let r=Buffer.byteLength(n,"utf8");if(r>s)return`Refused: ${t} would be ${r.toLocaleString("en-US")} bytes; a background task may write at most ${s.toLocaleString("en-US")} bytes into one memory file. Keep the file short (recall shows only its first ${i.toLocaleString("en-US")} bytes): move details into a separate topic, or leave them out. Nothing was written.`;if(t===d)return;let e=a(n),o=e.hasFrontmatter?e.problem!==void 0?[`a readable header (${e.problem})`]:[...e.name===void 0||e.name===""?["name"]:[],...e.description===void 0||e.description===""?["description"]:[],...e.type===void 0?[e.unknownType!==void 0?`a known type ("${e.unknownType}" is not user, feedback, project or reference)`:"metadata.type"]:[]]:["frontmatter"];if(o.length!==0)return`Refused: ${t} is a topic file and needs ${o.join(", ")}. Start it with a header like this, then the memory itself:
${m}
Nothing was written.`};export{u as a};
//# sourceMappingURL=pm-chunk-chunk-XGYODNSQ.js.map
