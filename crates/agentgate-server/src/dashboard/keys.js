// agentgate's dashboard from the keyboard. Everything is reachable with
// Tab (rows, step links and buttons are focusable; Enter opens a row);
// these keys shorten the common moves:
//   /          the runs list's filter
//   ↑ ↓        the previous or next row of the list (from a row)
//   Home End   the list's first or last row (from a row)
//   Esc        a step's run back to its workflow; else close the run
//              (focus returns to the row it was opened from) or the
//              New run form
// Keys typed into a field are the field's (except Esc, which leaves it).
// Uses app.js's `$` and transcript.js's `openRun` and `showRun`.
"use strict";

let openedFrom = null; // the row a run was opened from, to return to

function typing(target) {
  return target instanceof HTMLElement &&
    (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
}

function rowsOf(table) {
  return [...table.tBodies[0].rows].filter((r) => r.tabIndex === 0);
}

// Arrows and Home/End move between a table's focusable rows.
function moveInTable(e) {
  const row = e.target.closest && e.target.closest("tr.clickable");
  if (!row) return false;
  const rows = rowsOf(row.closest("table"));
  const at = rows.indexOf(row);
  const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: rows.length - 1 }[e.key];
  if (to === undefined || !rows[to]) return false;
  rows[to].focus();
  return true;
}

function escape(e) {
  if (!$("run-panel").hidden) {
    if (openRun && openRun.within) {
      showRun(openRun.within.workflow);
      $("run-title").focus();
    } else {
      $("run-close").click();
      // The list is drawn again every refresh: the row, by its run's id.
      const id = openedFrom && openedFrom.dataset.runId;
      const row = id && document.querySelector(`#runs tr[data-run-id="${CSS.escape(id)}"]`);
      if (row) row.focus();
    }
    return true;
  }
  if (!$("submit-panel").hidden) {
    $("submit-close").click();
    $("new-run").focus();
    return true;
  }
  if (typing(e.target)) {
    e.target.blur();
    return true;
  }
  return false;
}

document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
  let handled = false;
  if (e.key === "Escape") {
    handled = escape(e);
  } else if (typing(e.target)) {
    return;
  } else if (e.key === "/") {
    const filter = $("filter-status");
    if (filter.offsetParent !== null) {
      filter.focus();
      handled = true;
    }
  } else {
    handled = moveInTable(e);
  }
  if (handled) e.preventDefault();
});

// A run opened from a row: remember the row, and put the focus on the
// run's title so the keys continue from there.
document.addEventListener("keydown", (e) => {
  // The row itself (Enter on its Cancel button cancels, opens nothing).
  if (e.key !== "Enter" || !(e.target instanceof Element) || !e.target.matches("#runs tr.clickable")) return;
  openedFrom = e.target;
  setTimeout(() => $("run-title").focus(), 0);
}, true);
