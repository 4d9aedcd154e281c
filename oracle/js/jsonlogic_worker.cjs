// A persistent JSON Logic worker for differential testing.
//
//   node jsonlogic_worker.cjs js|engine   (reads JSON lines {"rule", "data"})
//
// Writes one JSON line per request: {"value": V} or {"error": {"type", "message"}}.
// JavaScript values JSON cannot carry are tagged: NaN, Infinity, -Infinity and
// undefined become {"$js": "NaN"} and so on, wherever they occur.
'use strict'
const readline = require('readline')

// json-logic-js's "log" operation prints with console.log; keep stdout for the protocol.
console.log = (...args) => process.stderr.write(args.map(String).join(' ') + '\n')

const which = process.argv[2] || 'js'
let apply
if (which === 'js') {
  const jsonLogic = require('json-logic-js')
  apply = (rule, data) => jsonLogic.apply(rule, data)
} else if (which === 'engine') {
  const { LogicEngine } = require('json-logic-engine')
  const engine = new LogicEngine()
  apply = (rule, data) => engine.run(rule, data)
} else {
  process.stderr.write(`unknown implementation ${which}\n`)
  process.exit(2)
}

function tag (key, value) {
  if (typeof value === 'number' && !Number.isFinite(value)) return { $js: String(value) }
  if (value === undefined) return { $js: 'undefined' }
  if (typeof value === 'function') return { $js: 'function' }
  return value
}

function errorOf (e) {
  if (typeof e === 'number' && Number.isNaN(e)) return { type: 'NaN', message: 'NaN' }
  if (e && typeof e === 'object' && 'type' in e) return { type: String(e.type), message: JSON.stringify(e) }
  return { type: (e && e.constructor && e.constructor.name) || 'Error', message: String(e && e.message || e) }
}

const rl = readline.createInterface({ input: process.stdin, terminal: false })
rl.on('line', (line) => {
  let out
  try {
    const request = JSON.parse(line)
    try {
      out = { value: apply(request.rule, request.data) }
    } catch (e) {
      out = { error: errorOf(e) }
    }
  } catch (e) {
    out = { error: { type: 'Invalid Input', message: String(e) } }
  }
  let text
  try {
    text = JSON.stringify(out, tag)
  } catch (e) {
    text = JSON.stringify({ error: { type: 'Unserializable', message: String(e) } })
  }
  process.stdout.write(text + '\n')
})
