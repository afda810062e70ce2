import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a as t}from"./pm-chunk-chunk-WDENK6AX.js";import{a}from"./pm-chunk-chunk-XT7UA3KU.js";import{o as s}from"./pm-chunk-chunk-QEQYTJYH.js";var d=32*1024,m="MEMORY.md",f=`---
name: short-topic-name
description: one line saying when this memory matters
metadata:
  type: project
---`,h=(n,r)=>{let o=Buffer.byteLength(r,"utf8");if(o>d)return`Refused: ${n} would be ${t(o)} bytes; a background task may write at most ${t(d)} bytes into one memory file. Keep the file short (recall shows only its first ${t(s)} bytes): move details into a separate topic, or leave them out. Nothing was written.`;if(n===m)return;let e=a(r),i=e.hasFrontmatter?e.problem!==void 0?[`a readable header (${e.problem})`]:[...e.name===void 0||e.name===""?["name"]:[],...e.description===void 0||e.description===""?["description"]:[],...e.type===void 0?[e.unknownType!==void 0?`a known type ("${e.unknownType}" is not user, feedback, project or reference)`:"metadata.type"]:[]]:["frontmatter"];if(i.length!==0)return`Refused: ${n} is a topic file and needs ${i.join(", ")}. Start it with a header like this, then the memory itself:
${f}
Nothing was written.`};export{h as a};
//# sourceMappingURL=pm-chunk-chunk-JS3ZIN6S.js.map
