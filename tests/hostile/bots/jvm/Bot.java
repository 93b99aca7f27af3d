// Test bot: a real JVM under the harness's default limits (built with javac, run with java).
// Plays the first legal action of every turn; no JSON library, a few string searches.
// Part of tests/hostile: a JVM reserves far more address space than it uses.
import java.io.BufferedReader;
import java.io.InputStreamReader;

public final class Bot {
    private static String field(String line, String name) {
        int at = line.indexOf("\"" + name + "\":");
        if (at < 0) return null;
        int start = at + name.length() + 3;
        int end = start;
        while (end < line.length() && "-0123456789".indexOf(line.charAt(end)) >= 0) end++;
        return line.substring(start, end);
    }

    private static String firstLegal(String line) {
        int at = line.indexOf("\"legal\":[");
        int start = line.indexOf('{', at);
        int end = line.indexOf('}', start);
        return line.substring(start + 1, end);
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.contains("\"type\":\"hello\"")) {
                System.out.println("{\"type\":\"hello\",\"name\":\"jvm\",\"version\":\"1\"}");
            } else if (line.contains("\"type\":\"turn\"")) {
                System.out.println("{\"type\":\"action\",\"id\":" + field(line, "id") + "," + firstLegal(line) + "}");
            } else if (line.contains("\"type\":\"shutdown\"")) {
                return;
            } else {
                continue;
            }
            System.out.flush();
        }
    }
}
