// Table sounds: off until the player turns them on, and remembered in this browser.
//
// Short tones made with Web Audio (no sound files to load): a card played, a trick
// taken, and a chime when the game waits for you. Nothing plays before the player
// has pressed the button, which is also what browsers require to start audio.

const KEY = "trickroom.sound";
let ctx = null;

export function soundOn() {
  try { return localStorage.getItem(KEY) === "on"; } catch { return false; }
}

export function setSound(on) {
  try { localStorage.setItem(KEY, on ? "on" : "off"); } catch { /* private mode: not remembered */ }
  if (on) audio();
}

function audio() {
  if (!ctx) {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return null;
    ctx = new Ctx();
  }
  if (ctx.state === "suspended") ctx.resume().catch(() => {});
  return ctx;
}

const TONES = {
  card: [[520, 0, 0.05]],
  trick: [[330, 0, 0.08], [440, 0.07, 0.08]],
  turn: [[660, 0, 0.1], [880, 0.11, 0.14]],
};

/** Play one of the named sounds, if sound is on. */
export function play(name) {
  if (!soundOn()) return;
  const a = audio();
  if (!a) return;
  for (const [freq, at, length] of TONES[name] || []) {
    const osc = a.createOscillator();
    const gain = a.createGain();
    const start = a.currentTime + at;
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, start);
    gain.gain.exponentialRampToValueAtTime(0.12, start + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + length);
    osc.connect(gain).connect(a.destination);
    osc.start(start);
    osc.stop(start + length + 0.02);
  }
}
