/* The subset of JSON Schema that tool registries use (type, enum, required, properties,
 * additionalProperties, items, lengths, bounds), for live feedback in the trace editor
 * (trace.js). The server validates again with jsonschema and is the authority. */
(function () {
  "use strict";

  function typeOk(value, type) {
    switch (type) {
      case "object": return value !== null && typeof value === "object" && !Array.isArray(value);
      case "array": return Array.isArray(value);
      case "string": return typeof value === "string";
      case "integer": return typeof value === "number" && Number.isInteger(value);
      case "number": return typeof value === "number" && isFinite(value);
      case "boolean": return typeof value === "boolean";
      case "null": return value === null;
      default: return true;
    }
  }

  function schemaErrors(value, schema, path, out) {
    if (!schema || typeof schema !== "object") return out;
    var where = path ? path + ": " : "";
    if (schema.type) {
      var types = [].concat(schema.type);
      if (!types.some(function (t) { return typeOk(value, t); })) {
        out.push(where + JSON.stringify(value) + " is not of type " + types.join(" or "));
        return out;
      }
    }
    if (schema.enum && !schema.enum.some(function (e) { return JSON.stringify(e) === JSON.stringify(value); })) {
      out.push(where + JSON.stringify(value) + " is not one of " + JSON.stringify(schema.enum));
    }
    if (typeOk(value, "object")) {
      (schema.required || []).forEach(function (name) {
        if (!Object.prototype.hasOwnProperty.call(value, name)) out.push(where + "'" + name + "' is a required property");
      });
      var props = schema.properties || {};
      Object.keys(value).forEach(function (name) {
        var sub = path ? path + "." + name : name;
        if (Object.prototype.hasOwnProperty.call(props, name)) schemaErrors(value[name], props[name], sub, out);
        else if (schema.additionalProperties === false) out.push(where + "'" + name + "' is not a parameter of this tool");
      });
    }
    if (Array.isArray(value) && schema.items) {
      value.forEach(function (v, i) { schemaErrors(v, schema.items, (path || "") + "[" + i + "]", out); });
    }
    if (typeof value === "string") {
      if (schema.minLength != null && value.length < schema.minLength) out.push(where + "is too short");
      if (schema.maxLength != null && value.length > schema.maxLength) out.push(where + "is too long");
    }
    if (typeof value === "number") {
      if (schema.minimum != null && value < schema.minimum) out.push(where + value + " is less than the minimum of " + schema.minimum);
      if (schema.maximum != null && value > schema.maximum) out.push(where + value + " is greater than the maximum of " + schema.maximum);
    }
    return out;
  }

  window.ArbiterTraceSchema = { typeOk: typeOk, errors: schemaErrors };
})();
